import { runCli, UsageError, type CliIo, type Invocation } from "@svc/cli";
import {
  ClientNotFoundError,
  ClientRuleError,
  type ClientManager,
  type ClientSummary,
  type Propagation,
} from "../domain/clients/client-manager.ts";
import type { Environment } from "../domain/clients/client-scopes.ts";
import { scopesFor } from "@svc/auth";
import { CLIENTS_SPEC } from "./clients-spec.ts";

/**
 * Exit codes: 0 done, 1 a client rule refused it, 2 bad usage, 3 done in the database but not yet
 * propagated, 4 no such client.
 */
export type ExitCode = 0 | 1 | 2 | 3 | 4;

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
    throw new UsageError(`${option} must be an ISO 8601 date-time, e.g. 2027-01-31T00:00:00Z`);
  return date;
}

function reportPropagation(io: CliIo, propagation: Propagation): ExitCode {
  if (propagation.propagated) return 0;
  io.err(
    `WARNING: saved in the database, but not yet published to the revocations bucket (${String((propagation.error as Error)?.message ?? propagation.error)}).`,
  );
  io.err(
    "The auth service re-publishes it within its reconcile interval once NATS is reachable; re-running this command also retries.",
  );
  return 3;
}

function printSecret(io: CliIo, json: boolean, client: ClientSummary, secret: string): void {
  if (json) return io.out(JSON.stringify({ client, client_secret: secret }));
  io.out(describe(client));
  io.out(`client_id:     ${client.id}`);
  io.out(`client_secret: ${secret}`);
  io.out(
    "The secret is shown this once and only its hash is stored: keep it in a secret store now; a lost secret must be rotated.",
  );
}

async function create(
  manager: ClientManager,
  environment: Environment,
  call: Invocation,
): Promise<ExitCode> {
  const name = call.string("name");
  if (!name) throw new UsageError("--name is required");
  if (!call.string("scopes") && !call.flag("all-scopes"))
    throw new UsageError("--scopes or --all-scopes is required");
  const crmMirror = call.flag("crm-mirror");
  const all = scopesFor(environment).filter((s) => crmMirror || s !== "crm-mirror:write");
  const scopes = call.flag("all-scopes")
    ? all
    : (call.string("scopes") ?? "")
        .split(",")
        .map((s) => s.trim())
        .filter(Boolean);
  const created = await manager.create({
    name,
    scopes,
    isCrmMirror: crmMirror,
    expiresAt: instant(call.string("expires-at"), "--expires-at") ?? null,
  });
  printSecret(call.io, call.flag("json"), created.client, created.secret);
  return reportPropagation(call.io, created.propagation);
}

async function dispatch(
  manager: ClientManager,
  environment: Environment,
  call: Invocation,
): Promise<ExitCode> {
  const { io, args } = call;
  const json = call.flag("json");
  const id = args[0]!;
  switch (call.path[0]) {
    case "create":
      return create(manager, environment, call);
    case "list": {
      const clients = await manager.list();
      if (json) io.out(JSON.stringify(clients));
      else clients.forEach((c) => io.out(describe(c)));
      return 0;
    }
    case "rotate": {
      const rotated = await manager.rotate(id);
      printSecret(io, json, rotated.client, rotated.secret);
      return 0;
    }
    default: {
      const done =
        call.path[0] === "revoke"
          ? await manager.revoke(id)
          : await manager.expire(id, instant(call.string("at"), "--at"));
      io.out(json ? JSON.stringify(done.client) : describe(done.client));
      return reportPropagation(io, done.propagation);
    }
  }
}

/** Runs one parsed `clients` command against a manager; the exit code. */
export async function clientCommand(
  manager: ClientManager,
  environment: Environment,
  call: Invocation,
): Promise<ExitCode> {
  try {
    return await dispatch(manager, environment, call);
  } catch (err) {
    if (err instanceof ClientNotFoundError) return (call.io.err(err.message), 4);
    if (err instanceof ClientRuleError) return (call.io.err(err.message), 1);
    throw err;
  }
}

/** Parses `argv` and runs it against a manager, printing to `io`; the exit code. */
export function runClientCommand(
  manager: ClientManager,
  environment: Environment,
  argv: string[],
  io: CliIo,
): Promise<number> {
  return runCli(CLIENTS_SPEC, (call) => clientCommand(manager, environment, call), {
    argv,
    print: io,
  });
}
