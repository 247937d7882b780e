import { dateIn, localOfInstant } from "@svc/time";
import { buildEvent } from "../event.ts";
import type { ChangeSource, ChangeRecord, PassContext } from "./change-source.ts";
import type { Fence } from "@svc/leader";
import type { TraceContext } from "@svc/messaging";
import type { ChangeStore } from "./change-store.ts";
import { occurredAt, stampsOf } from "./occurred-at.ts";
import { observe } from "./plan.ts";
import type { Change } from "./plan.ts";

export type PassKind = "quick" | "incremental" | "sweep" | "baseline";

/** Runs a pass's write inside its span, started by the first write (engine.ts). */
export type Traced = <T>(work: () => Promise<T>) => Promise<T>;

export type PassResult = {
  kind: PassKind;
  /** Records read from the source. */
  examined: number;
  created: number;
  updated: number;
  deleted: number;
  durationMs: number;
};

export type PassDeps = {
  store: ChangeStore;
  source: ChangeSource;
  now: () => number;
  timeZone: string;
  publicBaseUrl: string;
  /** Most records per transaction. */
  batchSize: number;
  emitCreatedOnBaseline: boolean;
  traceContext?: (() => TraceContext | undefined) | undefined;
  /** Called after a batch committed events (wakes the outbox relay). */
  onEvents?: (() => void) | undefined;
};

/** The state of one pass: its clock reading, its counters, and how it applies a page. */
export class DetectionPass {
  readonly kind: PassKind;
  readonly ctx: PassContext;
  readonly startedAt: Date;
  /** The detector's own wall clock in the source zone at the start of the pass. */
  readonly localNow: string;
  readonly #deps: PassDeps;
  readonly #fence: Fence;
  readonly #traced: Traced | undefined;
  readonly #counts = { examined: 0, created: 0, updated: 0, deleted: 0 };
  readonly #startedMono = performance.now();

  constructor(
    kind: PassKind,
    deps: PassDeps,
    control: { signal: AbortSignal; fence: Fence; traced?: Traced | undefined },
  ) {
    const nowMs = deps.now();
    this.kind = kind;
    this.#deps = deps;
    this.#fence = control.fence;
    this.#traced = control.traced;
    this.startedAt = new Date(nowMs);
    this.localNow = localOfInstant(nowMs, deps.timeZone);
    this.ctx = { today: dateIn(deps.timeZone, nowMs), nowMs, signal: control.signal };
  }

  /**
   * Evaluates records in batches; each batch commits on its own (state + events together). In an
   * incremental or quick pass these are the records read because their modification stamp moved, so the
   * stamp may date the change (occurred-at.ts); a sweep's records and re-reads by id are dated by
   * detection.
   */
  async apply(records: ChangeRecord[]): Promise<void> {
    this.compared(records.length);
    await this.#apply(records, this.kind === "incremental" || this.kind === "quick");
  }

  /**
   * Reads `ids` again from the source; an id it no longer returns is a delete. `stamps`: the
   * modification stamp that made a quick pass read each id, which may then date the change where
   * the record carries none of its own.
   */
  async applyByIds(ids: string[], stamps?: ReadonlyMap<string, string>): Promise<void> {
    const live = await this.#deps.source.byIds(ids, this.ctx);
    const found = new Set(live.map((r) => r.id));
    const gone = ids.filter((id) => !found.has(id)).map((id) => ({ id, canonical: null }));
    this.compared(ids.length);
    const dated = stamps
      ? live.map((r) => ({ ...r, modifiedLocal: r.modifiedLocal ?? stamps.get(r.id) ?? null }))
      : live;
    await this.#apply([...dated, ...gone], stamps !== undefined);
  }

  /** Counts records examined: read in full, or compared by digest alone (a sweep by digest). */
  compared(records: number): void {
    this.#counts.examined += records;
  }

  async #apply(records: ChangeRecord[], stamped: boolean): Promise<void> {
    const { store, batchSize, source, publicBaseUrl, timeZone } = this.#deps;
    for (let i = 0; i < records.length; i += batchSize) {
      this.ctx.signal.throwIfAborted();
      const batch = records.slice(i, i + batchSize);
      const detectedAt = new Date(this.#deps.now());
      const stamps = stamped ? stampsOf(batch, timeZone) : null;
      const events = await store.apply(observe(batch), {
        baseline: this.kind === "baseline" && !this.#deps.emitCreatedOnBaseline,
        seenAt: this.startedAt,
        fence: this.#fence,
        toEvent: (id: string, change: Change, since: Date | null) =>
          buildEvent({
            type: source.events[change],
            entityId: id,
            publicBaseUrl,
            occurredAt: occurredAt(stamps?.get(id), since, detectedAt),
          }),
        traced: this.#traced,
        traceContext: this.#deps.traceContext,
      });
      for (const e of events) this.#counts[e.change] += 1;
      if (events.length > 0) this.#deps.onEvents?.();
    }
  }

  result(): PassResult {
    return {
      kind: this.kind,
      ...this.#counts,
      durationMs: Math.round(performance.now() - this.#startedMono),
    };
  }
}
