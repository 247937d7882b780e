import { and, eq, isNull, sql } from "drizzle-orm";
import { guardStore } from "./guard-store.ts";
import { enqueueEvents, traceContextOf, withTransaction, type EventPayload } from "@svc/events";
import type { TraceContext } from "@svc/messaging";
import { applications, candidates, outbox } from "./schema.ts";
import type { Candidate } from "../domain/model.ts";
import type {
  ApplicationDraft,
  IdentityStore,
  IdentityTransaction,
  RecordedApplication,
} from "../domain/ports.ts";
import { identityTx, MAX_MERGE_DEPTH, type IdentityDb, type IdentityTx } from "./db.ts";
import { toCandidate } from "./rows.ts";
import { recordApplication } from "./record-application.ts";

type TraceContextSource = () => TraceContext | undefined;

/** The write side in PostgreSQL: every unit of work is one drizzle transaction (READ COMMITTED). */
export class PgIdentityStore implements IdentityStore {
  readonly #db: IdentityDb;
  readonly #traceContext: TraceContextSource;

  constructor(db: IdentityDb, traceContext: TraceContextSource = () => traceContextOf()) {
    this.#db = db;
    this.#traceContext = traceContext;
  }

  /**
   * Not drizzle's transaction(): after a statement timed out on a hung server its ROLLBACK waits
   * out a second timeout. withTransaction destroys a failed transaction's connection instead (the
   * server rolls back a closed session), so a request fails within one query timeout.
   */
  transaction<T>(work: (tx: IdentityTransaction) => Promise<T>): Promise<T> {
    return guardStore(() =>
      withTransaction(this.#db.$client, (client) =>
        work(new PgIdentityTransaction(identityTx(client), this.#traceContext)),
      ),
    );
  }

  /**
   * One statement, its own transaction; pg's pool.query discards the connection of a failed one.
   * A statement a hung server runs late still commits: a retry then finds that application (200).
   */
  recordApplication(draft: ApplicationDraft): Promise<RecordedApplication> {
    return guardStore(() => recordApplication(this.#db.$client, draft, this.#traceContext()));
  }
}

class PgIdentityTransaction implements IdentityTransaction {
  readonly #tx: IdentityTx;
  readonly #traceContext: TraceContextSource;

  constructor(tx: IdentityTx, traceContext: TraceContextSource) {
    this.#tx = tx;
    this.#traceContext = traceContext;
  }

  async markSubmitted(applicationUuid: string, at: Date): Promise<Date | undefined> {
    const [row] = await this.#tx
      .update(applications)
      .set({ submittedAt: at, updatedAt: at })
      .where(
        and(eq(applications.applicationUuid, applicationUuid), isNull(applications.submittedAt)),
      )
      .returning({ submittedAt: applications.submittedAt });
    return row?.submittedAt ?? undefined;
  }

  async submissionOf(applicationUuid: string): Promise<{ submittedAt: Date | null } | undefined> {
    const [row] = await this.#tx
      .select({ submittedAt: applications.submittedAt })
      .from(applications)
      .where(eq(applications.applicationUuid, applicationUuid));
    return row;
  }

  async lockCandidate(candidateUuid: string): Promise<Candidate | undefined> {
    const [row] = await this.#tx
      .select()
      .from(candidates)
      .where(eq(candidates.candidateUuid, candidateUuid))
      .for("update");
    return row && toCandidate(row);
  }

  async survivorOfCandidate(candidateUuid: string): Promise<string | undefined> {
    const result = await this.#tx.execute<{ candidate_uuid: string }>(sql`
      WITH RECURSIVE chain(candidate_uuid, next_uuid, depth) AS (
        SELECT candidate_uuid, merged_into_candidate_uuid, 0 FROM ${candidates} WHERE candidate_uuid = ${candidateUuid}::uuid
        UNION ALL
        SELECT c.candidate_uuid, c.merged_into_candidate_uuid, chain.depth + 1
          FROM chain JOIN ${candidates} c ON c.candidate_uuid = chain.next_uuid
         WHERE chain.depth < ${MAX_MERGE_DEPTH}
      )
      SELECT candidate_uuid FROM chain WHERE next_uuid IS NULL`);
    return result.rows[0]?.candidate_uuid;
  }

  async markMerged(candidateUuid: string, intoCandidateUuid: string, at: Date): Promise<void> {
    await this.#tx
      .update(candidates)
      .set({ status: "merged", mergedIntoCandidateUuid: intoCandidateUuid, updatedAt: at })
      .where(eq(candidates.candidateUuid, candidateUuid));
  }

  async enqueue(events: EventPayload[]): Promise<void> {
    await enqueueEvents(this.#tx, outbox, events, this.#traceContext());
  }
}
