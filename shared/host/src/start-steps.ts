import type { Shutdown } from "@svc/http";
import type { Logger } from "@svc/logging";

/**
 * The start-up, one named step at a time: a step that started something registers its stop, so
 * shutdown stops everything in the reverse order (@svc/http Shutdown). Each is logged `started`
 * with its name, as shutdown logs `stopped`; `current` names the step a failure came from.
 */
export class StartSteps {
  readonly #logger: Logger;
  readonly #shutdown: Shutdown;
  current = "configuration";

  constructor(logger: Logger, shutdown: Shutdown) {
    this.#logger = logger;
    this.#shutdown = shutdown;
  }

  /** Runs `start` as the step `name`; its `stop` (if any) joins the shutdown. */
  async step<T>(
    name: string,
    start: () => T | Promise<T>,
    stop?: (started: T) => Promise<void>,
  ): Promise<T> {
    this.current = name;
    // A signal during start-up: what has started is stopping, so nothing more starts.
    if (this.#shutdown.started) throw new StartAborted();
    const started = await start();
    if (stop) this.started(name, () => stop(started));
    return started;
  }

  /** Registers the stop of something already started, as a step of its own. */
  started(name: string, stop: () => Promise<void>): void {
    this.#shutdown.add(name, stop);
    this.#logger.info({ step: name }, "started");
  }
}

/** Start-up stopped because shutdown began (a signal arrived while starting). */
export class StartAborted extends Error {
  constructor() {
    super("shutdown began during start-up");
    this.name = "StartAborted";
  }
}
