import type { CommandSpec, OptionSpec } from "@svc/cli";

const JSON_OPTION: OptionSpec = { type: "boolean", description: "print JSON (shape below)" };
const CLIENT_JSON =
  '{"id": "cl_…", "name", "state": "active|expired|revoked", "scopes": [..], "isCrmMirror", "createdAt", "expiresAt", "revokedAt", "rotatedAt"} (instants as ISO strings or null)';
const SECRET_JSON = [
  '{"client": <client>, "client_secret": "cs_…"}: the secret is in it this once only',
  `<client> = ${CLIENT_JSON}`,
];
const NAME = "npm run clients --";
const EXIT_CODES = [
  "Exit codes: 0 done, 1 refused by a client rule, 2 usage, 3 saved in the database but not yet propagated, 4 no such client.",
];

/** A command on one client: `<command> <client_id>`. */
function onClient(
  command: string,
  summary: string,
  json: readonly string[],
  options: Record<string, OptionSpec> = {},
  exampleOptions = "",
): CommandSpec {
  return {
    name: `${NAME} ${command}`,
    summary,
    args: ["<client_id>"],
    options: { ...options, json: JSON_OPTION },
    json,
    examples: [`${NAME} ${command} cl_0123456789abcdef${exampleOptions}`],
    notes: EXIT_CODES,
  };
}

/** `npm run clients`: the commands, their options and what --json prints. */
export const CLIENTS_SPEC: CommandSpec = {
  name: NAME,
  summary:
    "Manage OAuth clients. Uses the auth service's configuration: DATABASE_URL, ENVIRONMENT, NATS_SERVERS, NATS_NAMESPACE.",
  secretEnv: ["DATABASE_URL", "NATS_SERVERS"],
  subcommands: {
    create: {
      name: `${NAME} create`,
      summary:
        "New client; prints its id and secret (the secret is shown this once only). Give --scopes or --all-scopes.",
      options: {
        name: { type: "string", value: "<text>", description: "what the client is (required)" },
        scopes: { type: "string", value: "<s1,s2,...>", description: "the scopes it may ask for" },
        "all-scopes": { type: "boolean", description: "every scope of the environment" },
        "crm-mirror": { type: "boolean", description: "the CRM mirror client (crm-mirror:write)" },
        "expires-at": { type: "string", value: "<date-time>", description: "ISO 8601 expiry" },
        json: JSON_OPTION,
      },
      json: SECRET_JSON,
      examples: [`${NAME} create --name "Careers site" --scopes vacancies:read,practices:read`],
      notes: EXIT_CODES,
    },
    list: {
      name: `${NAME} list`,
      summary: "Every client with its state and scopes.",
      options: { json: JSON_OPTION },
      json: [`[<client>, ...] with <client> = ${CLIENT_JSON}`],
      examples: [`${NAME} list --json`],
      notes: EXIT_CODES,
    },
    rotate: onClient(
      "rotate",
      "New secret for an active client (shown this once only); the old one stops working at once.",
      SECRET_JSON,
    ),
    revoke: onClient(
      "revoke",
      "The client gets no new tokens, and its existing tokens are rejected by every service within seconds.",
      [CLIENT_JSON],
    ),
    expire: onClient(
      "expire",
      "The client expires now (or at --at): no new tokens, existing ones rejected from then on.",
      [CLIENT_JSON],
      {
        at: {
          type: "string",
          value: "<date-time>",
          description: "ISO 8601 instant (default: now)",
        },
      },
      " --at 2027-01-31T00:00:00Z",
    ),
  },
  examples: [`${NAME} create --help`, `${NAME} list`],
  notes: EXIT_CODES,
};
