import { API_CLIENT_OPTIONS, type CommandSpec } from "@svc/cli";

/** `webhooks listen`: its options and what it reads from the environment. */
export const LISTEN_SPEC: CommandSpec = {
  name: "npm run webhooks -- listen",
  summary:
    "Follows the events feed and POSTs each event to --forward-to, signed like a real delivery. Ctrl+C stops.",
  options: {
    "forward-to": {
      type: "string",
      value: "<url>",
      description: "where to POST each event, e.g. http://localhost:3000/hooks (required)",
    },
    events: {
      type: "string",
      value: "<a,b,...>",
      description: "only these event types (default: every type your scopes may read)",
    },
    ...API_CLIENT_OPTIONS,
    secret: {
      type: "string",
      value: "<whsec_...>",
      secret: true,
      description: "the signing secret (default: $WEBHOOK_SECRET, else a new one, printed once)",
    },
    since: {
      type: "string",
      value: "<date-time>",
      description: "start at events recorded since then (default: now)",
    },
    "poll-ms": {
      type: "string",
      value: "<ms>",
      description: "wait between polls once caught up (default: 500)",
    },
  },
  secretEnv: ["CLIENT_SECRET", "WEBHOOK_SECRET"],
  examples: [
    "npm run webhooks -- listen --forward-to http://localhost:3000/hooks --events vacancy.published",
  ],
  notes: ["Exit codes: 0 stopped by Ctrl+C, 1 refused by the API, 2 usage."],
};
