/**
 * The lane rule (test/support/test-lanes.ts) on files whose lane is known: whatever starts the
 * stack, a service, a CLI or a private server, or talks to PostgreSQL, MariaDB or NATS, is in the
 * full lane; a file that works in-process, or only runs a command to completion, is quick.
 */
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { LaneScanner } from "./test-lanes.ts";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const scanner = new LaneScanner(
  ["shared", "services"].flatMap((top) =>
    readdirSync(join(ROOT, top))
      .map((name) => join(ROOT, top, name))
      .filter((dir) => existsSync(join(dir, "package.json"))),
  ),
);
const laneOf = (file: string) => scanner.lane(join(ROOT, file));

describe("test lanes", () => {
  it.each([
    ["test/e2e/flows.test.ts", "the whole stack (test/support/private-stack.ts)"],
    ["test/fault/fault-suite.test.ts", "the fault stack and private servers"],
    ["services/practices/test/main-process.test.ts", "a service process (@svc/testing)"],
    ["services/webhooks/test/dispatcher-fault.test.ts", "the dispatcher process, private NATS"],
    ["shared/db/test/pg-server-restart.test.ts", "a private PostgreSQL (@svc/testing)"],
    ["test/docs/developers.test.ts", "the guide's commands in a shell (spawnSync)"],
    ["shared/build/test/build.test.ts", "esbuild's service binary"],
    ["services/webhooks/test/delivery.test.ts", "PostgreSQL and NATS"],
    ["services/auth/test/token-request.test.ts", "PostgreSQL"],
  ])("%s needs servers: %s", (file) => {
    expect(laneOf(file)).toBe("full");
  });

  it.each([
    ["test/architecture/layering.test.ts", "reads source files"],
    ["services/gateway/test/gateway.test.ts", "in-process HTTP on loopback"],
    ["test/chart/dev-secrets.test.ts", "runs openssl to completion"],
    ["shared/errors/test/errors.test.ts", "a unit test"],
  ])("%s is quick: %s", (file) => {
    expect(laneOf(file)).toBe("quick");
  });
});
