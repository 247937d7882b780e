import type pg from "pg";
import {
  context,
  ROOT_CONTEXT,
  SpanStatusCode,
  trace,
  type Counter,
  type Histogram,
  type Meter,
  type Span,
} from "@opentelemetry/api";
import type { Logger } from "@svc/logging";
import type { TraceContext } from "@svc/messaging";
import { assertTimeZone } from "@svc/time";
import { checkedIdentifier } from "../pg-transaction.ts";
import { checkSource } from "./change-source.ts";
import type { ChangeSource, SourceDigest } from "./change-source.ts";
import { ChangeStore } from "./change-store.ts";
import type { Fence } from "@svc/leader";
import type { CursorRow, RecheckKey } from "./change-store.ts";
import { DetectionPass } from "./detection-pass.ts";
import { quickPass, SeenVersions } from "./quick-pass.ts";
import { readAhead } from "./read-ahead.ts";
import type { PassDeps, PassKind, PassResult } from "./detection-pass.ts";
import { earlierLocal, laterLocal, normalizeLocal, shiftLocal } from "./local-time.ts";
import { secondsSince, traceContextOf, tracer } from "../telemetry.ts";

export type ChangeDetectorOptions = {
  pool: pg.Pool;
  /** The service's own schema: change_state, change_cursor and outbox live there. */
  schema: string;
  source: ChangeSource;
  logger: Logger;
  /** For `links.self` in events. */
  publicBaseUrl: string;
  /** The zone of the source's wall-clock times and of "today" (e.g. Europe/Brussels). */
  timeZone: string;
  /** The clock; inject one in tests to move through calendar dates. Default Date.now. */
  now?: () => number;
  /** How far before the cursor each incremental pass reads again; default 2 min. */
  overlapMs?: number;
  /**
   * How far before the cursor each quick pass reads stamps: how far a writer's clock may run
   * behind the newest stamp and still be reported within a quick pass; default 3 h (quick-pass.ts).
   */
  quickWindowMs?: number;
  /** A version is read again by every quick pass for this long after it is first seen; 2 s. */
  quickSettleMs?: number;
  /** Called after a batch committed events, e.g. to wake the outbox relay. */
  onEvents?: () => void;
  /** Most records per transaction, and ids per byIds call; default 1000. */
  batchSize?: number;
  /** Emit `created` for every record found by the very first run; default false (baseline only). */
  emitCreatedOnBaseline?: boolean;
  /**
   * Table name of this source's state (a second source in one schema needs its own); default
   * change_state.
   */
  stateTable?: string;
  /**
   * W3C trace context stored with the events, read inside the write; default: the pass's span (when
   * tracing is on).
   */
  traceContext?: () => TraceContext | undefined;
  /** The process's Meter: pass duration and changes found, by source. */
  meter?: Meter;
};

/**
 * Who runs the pass: aborted when leadership is lost; the fence runs in every batch transaction.
 */
export type PassControl = { signal?: AbortSignal; fence?: Fence };

export type ChangeDetector = {
  /** Stamps since the cursor, full records only for versions not seen yet (quick-pass.ts). */
  runQuick(control?: PassControl): Promise<PassResult>;
  runIncremental(control?: PassControl): Promise<PassResult>;
  runSweep(control?: PassControl): Promise<PassResult>;
  /** True when no full sweep ran within `everyMs` (or none ever did). */
  sweepDue(everyMs: number): Promise<boolean>;
};

/** The change detection engine for one source; scheduling and leadership are startDetector's. */
export function createChangeDetector(options: ChangeDetectorOptions): ChangeDetector {
  const deps = passDeps(options);
  const overlapMs = options.overlapMs ?? 120_000;
  const quick = {
    windowMs: options.quickWindowMs ?? 3 * 3_600_000,
    settleMs: options.quickSettleMs ?? 2_000,
  };
  const seen = new SeenVersions();
  const metrics = options.meter ? passMetrics(options.meter) : undefined;
  const source = { "change_detection.source": deps.source.name };
  // A pass that finds something is a trace of its own, begun at its first write but dated from
  // its start; the events it writes carry its context into the outbox. A pass that finds nothing
  // (nearly all of them: a quick pass runs every 250 ms) records no span, only the passes counter.
  const run = async (
    kind: PassKind,
    control: PassControl,
    body: (pass: DetectionPass) => Promise<void>,
  ): Promise<PassResult> => {
    const started = performance.now();
    const startTime = Date.now();
    const attributes = { ...source, "change_detection.kind": kind };
    let span: Span | undefined;
    const traced = <T>(work: () => Promise<T>): Promise<T> => {
      span ??= tracer.startSpan("change detection pass", { root: true, startTime, attributes });
      return context.with(trace.setSpan(ROOT_CONTEXT, span), work);
    };
    try {
      const pass = new DetectionPass(kind, deps, {
        signal: control.signal ?? new AbortController().signal,
        fence: control.fence ?? noFence,
        traced,
      });
      await body(pass);
      const result = pass.result();
      span?.setAttributes({
        "change_detection.examined": result.examined,
        "change_detection.created": result.created,
        "change_detection.updated": result.updated,
        "change_detection.deleted": result.deleted,
      });
      metrics?.duration.record(secondsSince(started), { ...attributes, outcome: "ok" });
      metrics?.passes.add(1, { ...attributes, outcome: span ? "changed" : "unchanged" });
      for (const change of ["created", "updated", "deleted"] as const) {
        if (result[change] > 0)
          metrics?.changes.add(result[change], {
            ...source,
            "change_detection.change": change,
          });
      }
      if (
        result.created + result.updated + result.deleted > 0 ||
        kind === "sweep" ||
        kind === "baseline"
      ) {
        options.logger.info({ source: deps.source.name, ...result }, "change detection pass done");
      }
      return result;
    } catch (err) {
      metrics?.duration.record(secondsSince(started), { ...attributes, outcome: "error" });
      metrics?.passes.add(1, { ...attributes, outcome: "error" });
      // Only a pass that had found something has a span: failures are logged and counted, and a
      // source that is down would otherwise make a trace of every quick pass.
      span?.recordException(err as Error);
      span?.setStatus({ code: SpanStatusCode.ERROR });
      throw err;
    } finally {
      span?.end();
    }
  };

  async function runSweep(control: PassControl = {}): Promise<PassResult> {
    const cursor = await deps.store.readCursor();
    return run(cursor ? "sweep" : "baseline", control, (pass) => sweep(pass, deps, cursor));
  }

  async function runIncremental(control: PassControl = {}): Promise<PassResult> {
    const cursor = await deps.store.readCursor();
    // No baseline yet: the first run is a full sweep that records it.
    if (!cursor) return runSweep(control);
    return run("incremental", control, (pass) =>
      incremental(pass, deps, cursor.modifiedAfterLocal, overlapMs),
    );
  }

  async function runQuick(control: PassControl = {}): Promise<PassResult> {
    const cursor = await deps.store.readCursor();
    if (!cursor) return runSweep(control);
    return run("quick", control, (pass) =>
      quickPass(pass, deps, cursor.modifiedAfterLocal, seen, quick),
    );
  }

  async function sweepDue(everyMs: number): Promise<boolean> {
    const cursor = await deps.store.readCursor();
    return !cursor?.sweptAt || deps.now() - cursor.sweptAt.getTime() >= everyMs;
  }

  return { runQuick, runIncremental, runSweep, sweepDue };
}

function passDeps(options: ChangeDetectorOptions): PassDeps {
  const source = checkSource(options.source);
  const store = new ChangeStore({
    pool: options.pool,
    schema: checkedIdentifier(options.schema),
    stateTable: options.stateTable ?? "change_state",
    sourceName: source.name,
  });
  return {
    store,
    source,
    now: options.now ?? Date.now,
    timeZone: assertTimeZone(options.timeZone),
    publicBaseUrl: options.publicBaseUrl,
    batchSize: options.batchSize ?? 1_000,
    emitCreatedOnBaseline: options.emitCreatedOnBaseline ?? false,
    traceContext: options.traceContext ?? (() => traceContextOf()),
    onEvents: options.onEvents,
  };
}

type PassMetrics = { duration: Histogram; changes: Counter; passes: Counter };

function passMetrics(meter: Meter): PassMetrics {
  return {
    duration: meter.createHistogram("change_detection.pass.duration", {
      unit: "s",
      description: "Duration of change detection passes",
      advice: {
        explicitBucketBoundaries: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300],
      },
    }),
    changes: meter.createCounter("change_detection.changes", {
      unit: "{change}",
      description: "Changes found by change detection (events written)",
    }),
    passes: meter.createCounter("change_detection.passes", {
      unit: "{pass}",
      description:
        "Change detection passes by outcome: changed (wrote state or events; traced), unchanged, error",
    }),
  };
}

const noFence: Fence = async () => {};

/**
 * Every live record is compared; a record the state shows live but the sweep did not yield is
 * read again by id (it may have been created or moved while the sweep ran) and, if the source
 * no longer returns it, reported deleted once. Catches hard and soft deletes and any change
 * that did not touch the modification time (a joined row, a direct SQL fix).
 */
async function sweep(pass: DetectionPass, deps: PassDeps, cursor: CursorRow | null): Promise<void> {
  const seen = new Set<string>();
  const digests = deps.source.digests;
  if (digests && cursor && cursor.digestVersion === digests.version) {
    await sweepByDigest(pass, deps, digests.sweep(pass.ctx), seen);
  } else {
    for await (const page of readAhead(deps.source.sweep(pass.ctx))) {
      pass.ctx.signal.throwIfAborted();
      for (const r of page) seen.add(r.id);
      await pass.apply(page);
    }
  }
  // Rows written during this sweep carry seen_at = its start, so they are not candidates; the
  // candidates come a page at a time and are read again in batches as they gather.
  const candidatePage = deps.batchSize * 10;
  let missing: string[] = [];
  for (let after: string | null = null; ;) {
    pass.ctx.signal.throwIfAborted();
    const ids = await deps.store.liveIdsSeenBefore(pass.startedAt, after, candidatePage);
    for (const id of ids) if (!seen.has(id)) missing.push(id);
    const last = ids.length < candidatePage;
    while (missing.length >= deps.batchSize || (last && missing.length > 0)) {
      await pass.applyByIds(missing.slice(0, deps.batchSize));
      missing = missing.slice(deps.batchSize);
    }
    if (last) break;
    after = ids[ids.length - 1] as string;
  }
  // The state now holds this digest version's digest of every live record. Changes made while a
  // baseline ran carry later modification times: the first incremental pass starts from its start.
  const digestVersion = digests?.version ?? null;
  if (cursor)
    await deps.store.updateCursor({ sweptAt: pass.startedAt, digestVersion }, pass.startedAt);
  else await deps.store.saveBaseline(pass.localNow, pass.startedAt, digestVersion);
}

/**
 * The sweep when the source has digests: every live record's digest is compared with the one
 * stored with its state, and only the records that differ (or are due a recheck) are read in full
 * and evaluated as in the full sweep. Why: docs/decisions/change-detection-sweep.md.
 */
async function sweepByDigest(
  pass: DetectionPass,
  deps: PassDeps,
  pages: AsyncIterable<SourceDigest[]>,
  seen: Set<string>,
): Promise<void> {
  for await (const page of readAhead(pages)) {
    pass.ctx.signal.throwIfAborted();
    for (const d of page) seen.add(d.id);
    const stale = await deps.store.staleDigests(page, pass.ctx.today);
    pass.compared(page.length - stale.length);
    for (let i = 0; i < stale.length; i += deps.batchSize)
      await pass.applyByIds(stale.slice(i, i + deps.batchSize));
  }
}

/**
 * Reads what changed since the cursor (minus the overlap: clock skew between writers, and
 * transactions that commit after rows with later timestamps), then re-reads the records whose
 * calendar date has come. The cursor becomes the newest modification time seen, but never later
 * than the detector's own local time: a writer whose clock runs ahead cannot push it past rows
 * still to come, and in the repeated autumn hour the cursor falls back with the wall clock.
 */
async function incremental(
  pass: DetectionPass,
  deps: PassDeps,
  cursor: string,
  overlapMs: number,
): Promise<void> {
  let newest = cursor;
  for await (const page of deps.source.changedSince(
    { modifiedAfterLocal: shiftLocal(cursor, -overlapMs) },
    pass.ctx,
  )) {
    pass.ctx.signal.throwIfAborted();
    await pass.apply(page);
    for (const r of page)
      if (r.modifiedLocal) newest = laterLocal(newest, normalizeLocal(r.modifiedLocal));
  }
  await recheckDue(pass, deps);
  const next = earlierLocal(newest, pass.localNow);
  if (next !== cursor) await deps.store.updateCursor({ modifiedAfterLocal: next }, pass.startedAt);
}

/** Calendar-driven changes: records whose recheck date is today or earlier are read again. */
async function recheckDue(pass: DetectionPass, deps: PassDeps): Promise<void> {
  // Keyset, so a record whose source keeps a past recheck date is read once per pass.
  for (let after: RecheckKey | null = null; ;) {
    pass.ctx.signal.throwIfAborted();
    const due = await deps.store.dueForRecheck(pass.ctx.today, after, deps.batchSize);
    if (due.length > 0) await pass.applyByIds(due.map((d) => d.id));
    if (due.length < deps.batchSize) return;
    after = due[due.length - 1] as RecheckKey;
  }
}
