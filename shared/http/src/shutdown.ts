import type { Logger } from "@svc/logging";

type Task = { name: string; run: () => Promise<void> };

/**
 * Graceful shutdown on SIGTERM/SIGINT: each resource or task registers its stop as it starts, and
 * the steps run in the reverse order, the last started first (stop accepting requests, drain
 * in-flight requests and messages, close pools), each bounded, then the process exits. A second
 * signal exits at once.
 */
export class Shutdown {
  readonly #tasks: Task[] = [];
  readonly #logger: Logger;
  readonly #stepTimeoutMs: number;
  #running: Promise<void> | undefined;

  constructor(logger: Logger, stepTimeoutMs = 15_000) {
    this.#logger = logger;
    this.#stepTimeoutMs = stepTimeoutMs;
  }

  /** Adds a step; steps run in the reverse order they were added. */
  add(name: string, run: () => Promise<void>): this {
    this.#tasks.push({ name, run });
    return this;
  }

  /** Whether run() has been called. */
  get started(): boolean {
    return this.#running !== undefined;
  }

  run(reason: string): Promise<void> {
    this.#running ??= this.#runAll(reason);
    return this.#running;
  }

  async #runAll(reason: string): Promise<void> {
    this.#logger.info({ reason }, "shutting down");
    for (const task of [...this.#tasks].reverse()) await this.#step(task);
    this.#logger.info({}, "shutdown complete");
  }

  async #step(task: Task): Promise<void> {
    const started = performance.now();
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<"timeout">((resolve) => {
      timer = setTimeout(() => resolve("timeout"), this.#stepTimeoutMs);
    });
    try {
      const outcome = await Promise.race([task.run().then(() => "done" as const), timeout]);
      if (outcome === "timeout") this.#logger.warn({ step: task.name }, "shutdown step timed out");
      else
        this.#logger.info(
          { step: task.name, duration_ms: Math.round(performance.now() - started) },
          "stopped",
        );
    } catch (err) {
      this.#logger.error({ err, step: task.name }, "shutdown step failed");
    } finally {
      clearTimeout(timer);
    }
  }

  /** Wires the process signals; the process exits once every step has run. */
  installSignalHandlers(exit: (code: number) => void = (code) => process.exit(code)): void {
    let signalled = false;
    const onSignal = (signal: NodeJS.Signals) => {
      if (signalled) exit(1);
      signalled = true;
      void this.run(signal).then(() => exit(0));
    };
    process.on("SIGTERM", onSignal);
    process.on("SIGINT", onSignal);
  }
}
