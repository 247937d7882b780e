// `npm start` (and `npm run dev` with --watch): runs the whole system on this machine, each
// service as its own process behind a local gateway that routes like the Ingress. `npm start`
// builds and runs the bundles production runs (@svc/build); `npm run dev` runs the TypeScript
// sources under `node --watch`, so an edit restarts the process that changed.
import { parseArgs } from "node:util";
import { fileURLToPath } from "node:url";
import { stackWithOffset, upstreamsOf } from "./stack.ts";
import { dependencies, ensurePgDatabase, preflight } from "./preflight.ts";
import { Supervisor } from "./supervisor.ts";
import { build } from "@svc/build";
import { buildPortal } from "@integration-service/portal/build";
import { localStackConfig } from "./config.ts";
import { prepareSandbox, prepareDemoClient } from "./sandbox.ts";

const root = fileURLToPath(new URL("..", import.meta.url));
const { values } = parseArgs({ options: { watch: { type: "boolean", default: false } } });
let config: ReturnType<typeof localStackConfig>;
try {
  config = localStackConfig();
} catch (err) {
  console.error(`Cannot start: ${(err as Error).message}`);
  process.exit(1);
}
const stack = stackWithOffset(config.portOffset, config.replicas);

const problems = await preflight(
  dependencies({ pg: config.pgUrl, mysql: config.mysqlUrl, nats: config.natsUrl }),
);
if (problems.length > 0) {
  console.error(
    `Cannot start: ${problems.length} dependenc${problems.length === 1 ? "y is" : "ies are"} not reachable.\n  - ${problems.join("\n  - ")}`,
  );
  process.exit(1);
}
await ensurePgDatabase(config.pgUrl);
if (!values.watch) await build();
// The subscriber portal's page (the webhooks service serves packages/portal/dist at /portal/).
await buildPortal();
await prepareSandbox(config);

let shuttingDown = false;
const supervisor = new Supervisor({
  root,
  env: { ...config.childEnv, GATEWAY_UPSTREAMS: upstreamsOf(stack) },
  watch: values.watch,
  onLine: (name, line) =>
    process.stdout.write(config.rawLogs ? `${line}\n` : `${name.padEnd(20)} ${line}\n`),
  onGiveUp: (name) => {
    console.error(`${name} keeps crashing; stopping the stack.`);
    void stop(1);
  },
});

async function stop(code: number) {
  if (shuttingDown) return;
  shuttingDown = true;
  await supervisor.stop();
  process.exit(code);
}
process.on("SIGINT", () => void stop(0));
process.on("SIGTERM", () => void stop(0));

for (const proc of stack) supervisor.start(proc);
// Every process starts at once and they share the CPU: more processes (replicas) take longer.
const startTimeoutMs = Math.max(60_000, 10_000 * stack.length);
// Ready, not only alive: a service's readiness waits for its dependencies and its warm-up, so the
// first request after "up" meets a warmed service, as behind a Kubernetes Service.
for (const proc of stack) {
  await waitForHealth(
    proc.internalPort === null
      ? `http://127.0.0.1:${proc.port}/health`
      : `http://127.0.0.1:${proc.internalPort}/readyz`,
    startTimeoutMs,
  );
}
const demo = await prepareDemoClient(config);
console.log(
  `\nIntegration service is up: ${config.baseUrl}  (health: ${config.baseUrl}/v1/health)`,
);
if (demo) console.log(demo);
console.log("Press Ctrl+C to stop.\n");

async function waitForHealth(url: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    try {
      if ((await fetch(url)).ok) return;
    } catch {
      // not up yet
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  console.error(`The stack did not become healthy within ${timeoutMs / 1000} s (${url}).`);
  await stop(1);
}
