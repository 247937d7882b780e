import { httpLimits, serveApi, Shutdown, type InternalServing } from "@svc/http";
import type { LeaderGroup } from "@svc/leader";
import { createLogger, logsWritten, type Logger } from "@svc/logging";
import {
  noMetrics,
  readinessState,
  startInternal,
  startResources,
  type HostState,
  type Readiness,
} from "./resources.ts";
import type {
  Host,
  ProcessSettings,
  ProcessSpec,
  ProcessTask,
  Resources,
  ResourcesFor,
} from "./spec.ts";
import { StartAborted, StartSteps } from "./start-steps.ts";
import { exitOnStartupError } from "./start-up-error.ts";

/**
 * Runs a process from its declaration, the way controller-runtime's manager runs its runnables:
 * configuration (its errors printed for a person, exit 1), logging, then the internal port
 * (/livez, /readyz, /metrics) and metrics, the declared resources (legacy database, PostgreSQL
 * and its migrations, NATS, the revocation feed and token verification, the election), the
 * process's adapters, its tasks, the leader group, and last the public API. Each step registers
 * its stop as it starts; SIGTERM (or SIGINT) runs the stops in the reverse order, each bounded,
 * and exits 0; a second signal exits at once. /readyz is `starting` until every step has started.
 * A step that fails stops what has started and exits 1, the log naming the step.
 */
export async function runProcess<C extends ProcessSettings, R extends ResourcesFor<C>, A>(
  spec: ProcessSpec<C, R, A>,
): Promise<void> {
  let config: C;
  try {
    config = await spec.config();
  } catch (err) {
    exitOnStartupError(spec.name, err);
  }
  const logger = createLogger({ service: spec.name, level: config.LOG_LEVEL });
  const shutdown = new Shutdown(logger);
  const exit = (code: number) => void logsWritten(logger).then(() => process.exit(code));
  shutdown.installSignalHandlers(exit);
  const steps = new StartSteps(logger, shutdown);
  try {
    await start(spec, config, logger, shutdown, steps);
  } catch (err) {
    // A signal during start-up: the handler is stopping what started, then exits.
    if (err instanceof StartAborted) return;
    const message = err instanceof Error ? err.message : String(err);
    logger.error({ err, step: steps.current }, `failed to start: ${steps.current}: ${message}`);
    await shutdown.run("start-up failed");
    exit(1);
  }
}

async function start<C extends ProcessSettings, R extends ResourcesFor<C>, A>(
  spec: ProcessSpec<C, R, A>,
  config: C,
  logger: Logger,
  shutdown: Shutdown,
  steps: StartSteps,
): Promise<void> {
  const state: HostState = {
    name: spec.name,
    version: spec.version,
    config,
    logger,
    meter: noMetrics(),
    onShutdown: (name, stop) => steps.started(name, stop),
  };
  const readiness = readinessState(spec.warmUp !== undefined);
  const internal =
    config.INTERNAL_PORT === undefined
      ? undefined
      : await startInternal(state, steps, shutdown, readiness);
  await startResources(state, (spec.resources ?? {}) as Resources, steps, readiness);
  const host = state as unknown as Host<C, R & Resources>;
  steps.current = "adapters";
  const adapters = (await spec.adapters?.(host)) as A;
  readiness.checks.push(...(spec.readiness?.(host, adapters) ?? []));
  if (readiness.warmUp && spec.warmUp) readiness.warmUp.run = spec.warmUp(host, adapters);
  steps.current = "tasks";
  const tasks = (await spec.tasks?.(host, adapters)) ?? [];
  await startTasks(tasks, state, steps);
  await startApi(spec, host, adapters, { shutdown, steps, internal, readiness });
}

/** Every replica's tasks in order, then the leader group with the leader-only ones. */
async function startTasks(
  tasks: ProcessTask[],
  state: HostState,
  steps: StartSteps,
): Promise<void> {
  const leader = state.leader as LeaderGroup | undefined;
  for (const task of tasks) {
    if (task.leaderOnly) {
      if (!leader)
        throw new Error(`leader-only task "${task.name}" needs the process's leadership`);
      leader.add(task);
    } else {
      await steps.step(
        task.name,
        () => task.start(),
        (started) => started.stop(),
      );
    }
  }
  // Started after the tasks it may feed, stopped before them: it releases its lock or Lease
  // while the pool is still there.
  if (leader)
    await steps.step(
      `leader group (${state.election})`,
      () => leader.start(),
      () => leader.stop(),
    );
}

/** The public API last, so it drains first; then /readyz begins checking. */
async function startApi<C extends ProcessSettings, R extends ResourcesFor<C>, A>(
  spec: ProcessSpec<C, R, A>,
  host: Host<C, R & Resources>,
  adapters: A,
  run: {
    shutdown: Shutdown;
    steps: StartSteps;
    internal: InternalServing | undefined;
    readiness: Readiness;
  },
): Promise<void> {
  const { config, logger } = host;
  const api = spec.app
    ? await serveApi({
        logger,
        shutdown: run.shutdown,
        app: spec.app(host, adapters),
        port: config.PORT,
        limits: httpLimits(config),
        ...(spec.http?.bind !== undefined && { host: spec.http.bind }),
        ...(spec.http?.drainMs !== undefined && { drainMs: spec.http.drainMs }),
        ...(run.internal && { internal: run.internal }),
      })
    : undefined;
  if (api) logger.info({ step: "stop accepting requests" }, "started");
  // Without an API, draining still turns readiness to 503 first.
  else if (run.internal) run.steps.started("readiness", async () => run.internal?.drain());
  run.readiness.booted();
  if (run.internal)
    logger.info({ port: api?.port, internal_port: run.internal.server.port }, "listening");
  else logger.info({ port: api?.port }, `${spec.name} listening`);
}
