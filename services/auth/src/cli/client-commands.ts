import { parseArgs } from "node:util";
import {
  ClientNotFoundError,
  ClientRuleError,
  type ClientManager,
  type ClientSummary,
  type Propagation,
} from "../domain/clients/client-manager.ts";
import type { Environment } from "../domain/clients/client-scopes.ts";
import { scopesFor } from "@svc/auth";

export const USAGE = `Usage: npm run clients -- <command> [options]

  create --name <text> (--scopes <s1,s2,...> | --all-scopes) [--crm-mirror] [--expires-at <ISO date-time>]
         new client; prints its id and secret (the secret is shown this once only)
  list   every client with its state and scopes
  rotate <client_id>
         new secret for an active client (shown this once only); the old one stops working at once
  revoke <client_id>
         the client gets no new tokens, and its existing tokens are rejected by every service within seconds
  expire <client_id> [--at <ISO date-time>]
         the client expires now (or at the given instant): no new tokens, existing ones rejected from then on

Add --json to any command for machine-readable output.`;

/**
 * Exit codes: 0 done, 1 bad usage or a client rule, 2 no such client, 3 done in the database but
 * not yet propagated.
 */
export type ExitCode = 0 | 1 | 2 | 3;

/** A mistake in how the command was called: answered with the usage text. */
class UsageError extends Error {}

export interface CommandIo {
  out: (line: string) => void;
  err: (line: string) => void;
}

function describe(client: ClientSummary): string {
  const extras = [
    client.isCrmMirror ? "crm-mirror" : "",
    client.expiresAt ? `expires ${client.expiresAt.toISOString()}` : "",
    client.revokedAt ? `revoked ${client.revokedAt.toISOString()}` : "",
    client.rotatedAt ? `rotated ${client.rotatedAt.toISOString()}` : "",
  ].filter(Boolean);
  return `${client.id}  ${client.state.padEnd(7)}  ${client.name}  [${client.scopes.join(" ")}]  created ${client.createdAt.toISOString()}${extras.length ? `  ${extras.join(", ")}` : ""}`;
}

function instant(value: string | undefined, option: string): Date | undefined {
  if (value === undefined) return undefined;
  const date = new Date(value);
  if (!/^\d{4}-\d{2}-\d{2}T/.test(value) || Number.isNaN(date.getTime()))
    throw new ClientRuleError(`${option} must be an ISO 8601 date-time, e.g. 2027-01-31T00:00:00Z`);
  return date;
}

function reportPropagation(io: CommandIo, propagation: Propagation): ExitCode {
  if (propagation.propagated) return 0;
  io.err(
    `WARNING: saved in the database, but not yet published to the revocations bucket (${String((propagation.error as Error)?.message ?? propagation.error)}).`,
  );
  io.err(
    "The auth service re-publishes it within its reconcile interval once NATS is reachable; re-running this command also retries.",
  );
  return 3;
}

function printSecret(io: CommandIo, json: boolean, client: ClientSummary, secret: string): void {
  if (json) return io.out(JSON.stringify({ client, client_secret: secret }));
  io.out(describe(client));
  io.out(`client_id:     ${client.id}`);
  io.out(`client_secret: ${secret}`);
  io.out(
    "The secret is shown this once and only its hash is stored: keep it in a secret store now; a lost secret must be rotated.",
  );
}

type Options = {
  name?: string;
  scopes?: string;
  "all-scopes"?: boolean;
  "crm-mirror"?: boolean;
  "expires-at"?: string;
  at?: string;
  json?: boolean;
};

async function create(
  manager: ClientManager,
  environment: Environment,
  o: Options,
  io: CommandIo,
): Promise<ExitCode> {
  const all = scopesFor(environment).filter((s) => o["crm-mirror"] || s !== "crm-mirror:write");
  const scopes = o["all-scopes"]
    ? all
    : (o.scopes ?? "")
        .split(",")
        .map((s) => s.trim())
        .filter(Boolean);
  const created = await manager.create({
    name: o.name ?? "",
    scopes,
    isCrmMirror: o["crm-mirror"] === true,
    expiresAt: instant(o["expires-at"], "--expires-at") ?? null,
  });
  printSecret(io, o.json === true, created.client, created.secret);
  return reportPropagation(io, created.propagation);
}

async function dispatch(
  manager: ClientManager,
  environment: Environment,
  command: string,
  id: string | undefined,
  o: Options,
  io: CommandIo,
): Promise<ExitCode> {
  const json = o.json === true;
  const needId = () => {
    if (!id) throw new UsageError(`${command} needs a client id`);
    return id;
  };
  switch (command) {
    case "create":
      return create(manager, environment, o, io);
    case "list": {
      const clients = await manager.list();
      if (json) io.out(JSON.stringify(clients));
      else clients.forEach((c) => io.out(describe(c)));
      return 0;
    }
    case "rotate": {
      const rotated = await manager.rotate(needId());
      printSecret(io, json, rotated.client, rotated.secret);
      return 0;
    }
    case "revoke":
    case "expire": {
      const done =
        command === "revoke"
          ? await manager.revoke(needId())
          : await manager.expire(needId(), instant(o.at, "--at"));
      io.out(json ? JSON.stringify(done.client) : describe(done.client));
      return reportPropagation(io, done.propagation);
    }
    default:
      throw new UsageError(`unknown command '${command}'`);
  }
}

/** Runs one CLI invocation against a manager; returns the exit code. */
export async function runClientCommand(
  manager: ClientManager,
  environment: Environment,
  argv: string[],
  io: CommandIo,
): Promise<ExitCode> {
  try {
    const { positionals, values } = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        name: { type: "string" },
        scopes: { type: "string" },
        "all-scopes": { type: "boolean" },
        "crm-mirror": { type: "boolean" },
        "expires-at": { type: "string" },
        at: { type: "string" },
        json: { type: "boolean" },
      },
    });
    const [command, id] = positionals;
    if (!command) throw new UsageError("a command is required");
    return await dispatch(manager, environment, command, id, values, io);
  } catch (err) {
    if (err instanceof ClientNotFoundError) return (io.err(err.message), 2);
    if (err instanceof ClientRuleError) return (io.err(err.message), 1);
    if (
      err instanceof UsageError ||
      (err as { code?: string }).code?.startsWith("ERR_PARSE_ARGS")
    ) {
      io.err(`${(err as Error).message}\n\n${USAGE}`);
      return 1;
    }
    throw err;
  }
}
