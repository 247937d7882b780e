/**
 * The event producers of the fault suite: application creations through the API (each retried
 * with its Idempotency-Key until it gets a 2xx) and legacy vacancy changes written into the
 * primary database the way the legacy application does (a row update stamping its modification
 * time in Brussels wall-clock time). Each records only what it knows was committed.
 */
import { createConnection, type ResultSetHeader } from "mysql2/promise";
import { sleep } from "@svc/testing";
import { localOfInstant } from "@svc/time";
import type { Recorder } from "./load.ts";

export interface VacancyRef {
  uuid: string;
  practiceId: string;
}

export interface Acknowledged {
  key: string;
  applicationUuid: string;
  status: number;
  replayed: boolean;
}

export interface ApplicationProducer {
  /** Applications started (an Idempotency-Key each). */
  started(): number;
  /** Answers 2xx, one per key. */
  acknowledged(): Acknowledged[];
  /** Answers that are neither 2xx nor a transient failure (a bug): status and code. */
  refused(): string[];
  /** Keys still being retried. */
  outstanding(): number;
  /** Starts no new application; retries go on for at most `graceMs`, then are abandoned. */
  stop(graceMs: number): Promise<void>;
}

/**
 * Statuses a client retries with the same Idempotency-Key: no answer, 409 in progress, 429, 5xx.
 */
const transient = (status: number) =>
  status === 0 || status === 409 || status === 429 || status >= 500;

export function startApplicationProducer(options: {
  recorder: Recorder;
  baseUrl: string;
  token: () => string;
  vacancies: ReadonlyArray<VacancyRef>;
  perSecond: number;
  /** Keys in flight at most; during an outage no new ones start beyond it. */
  maxOutstanding: number;
  runId: string;
}): ApplicationProducer {
  const acknowledged: Acknowledged[] = [];
  const refused: string[] = [];
  const tasks = new Set<Promise<void>>();
  let started = 0;
  let accepting = true;
  let retrying = true;

  const apply = async (i: number) => {
    const key = `fault-${options.runId}-${i}`;
    const vacancy = options.vacancies[i % options.vacancies.length]!;
    const body = JSON.stringify({
      vacancy_uuid: vacancy.uuid,
      practice_id: vacancy.practiceId,
      candidate: { email: `fault-${options.runId}-${i}@example.com` },
      consent: true,
      entrypoint: "fault suite",
    });
    while (retrying) {
      const res = await options.recorder.request<{ data?: { application_uuid?: string } }>(
        "apply",
        `${options.baseUrl}/v1/applications`,
        {
          method: "POST",
          headers: {
            authorization: `Bearer ${options.token()}`,
            "content-type": "application/json",
            accept: "application/json",
            "idempotency-key": key,
          },
          body,
        },
      );
      if (res.status >= 200 && res.status < 300) {
        acknowledged.push({
          key,
          applicationUuid: String(res.body?.data?.application_uuid),
          status: res.status,
          replayed: res.headers?.get("idempotent-replayed") === "true",
        });
        return;
      }
      if (!transient(res.status)) {
        refused.push(`${key}: ${res.status} ${res.code}`);
        return;
      }
      const retryAfter = Number(res.headers?.get("retry-after") ?? "0");
      await sleep(Math.max(250, Math.min(retryAfter * 1_000, 2_000)));
    }
  };

  const ticker = (async () => {
    while (accepting) {
      if (tasks.size < options.maxOutstanding) {
        const task = apply(started++).finally(() => tasks.delete(task));
        tasks.add(task);
      }
      await sleep(1_000 / options.perSecond);
    }
  })();

  return {
    started: () => started,
    acknowledged: () => [...acknowledged],
    refused: () => [...refused],
    outstanding: () => tasks.size,
    async stop(graceMs) {
      accepting = false;
      await ticker;
      const deadline = Date.now() + graceMs;
      while (tasks.size > 0 && Date.now() < deadline) await sleep(100);
      retrying = false;
      await Promise.all([...tasks]);
    },
  };
}

export interface LegacyChange {
  vacancyUuid: string;
  title: string;
  committedAt: number;
}

export interface LegacyChanger {
  committed(): LegacyChange[];
  /** Writes that failed (the server was down); each is retried until it commits. */
  failures(): number;
  stop(): Promise<void>;
}

/**
 * Changes one vacancy row per tick, each a different vacancy, so every change must surface as
 * its own vacancy.updated event. A write that fails is retried on the next tick (same vacancy):
 * a change counts once its UPDATE returned.
 */
export function startLegacyChanges(options: {
  legacyUrl: string;
  vacancyUuids: ReadonlyArray<string>;
  perSecond: number;
  timeZone: string;
  runId: string;
}): LegacyChanger {
  const committed: LegacyChange[] = [];
  let failures = 0;
  let running = true;
  let next = 0;
  const write = async (uuid: string, title: string) => {
    const conn = await createConnection({ uri: options.legacyUrl, connectTimeout: 1_000 });
    conn.on("error", () => undefined);
    try {
      const [result] = await conn.query<ResultSetHeader>({
        sql: "UPDATE tbl_vacature SET kop_publiek = ?, gewijzigd_op = ? WHERE uuid = ?",
        values: [title, localOfInstant(Date.now(), options.timeZone), uuid],
        timeout: 3_000,
      });
      if (result.affectedRows !== 1)
        throw new Error(`vacancy ${uuid} is not in the legacy database`);
    } finally {
      await conn.end().catch(() => conn.destroy());
    }
  };
  const loop = (async () => {
    while (running && next < options.vacancyUuids.length) {
      const uuid = options.vacancyUuids[next]!;
      const title = `Fault ${options.runId} change ${next}`;
      try {
        await write(uuid, title);
        committed.push({ vacancyUuid: uuid, title, committedAt: Date.now() });
        next++;
      } catch (err) {
        if (/is not in the legacy database/.test((err as Error).message)) throw err;
        failures++;
      }
      await sleep(1_000 / options.perSecond);
    }
  })();
  return {
    committed: () => [...committed],
    failures: () => failures,
    async stop() {
      running = false;
      await loop;
    },
  };
}
