import { and, eq, inArray, isNull, sql } from "drizzle-orm";
import { guardStore } from "./guard-store.ts";
import { enqueueEvents, withTransaction, type EventPayload } from "@svc/events";
import {
  applications,
  candidateIdentifiers,
  candidates,
  outbox,
  recruitmentCases,
} from "./schema.ts";
import type { LookupKey } from "../domain/identifiers/lookup-keys.ts";
import type { Application, Candidate, RecruitmentCase } from "../domain/model.ts";
import type { IdentityStore, IdentityTransaction } from "../domain/ports.ts";
import { identityTx, MAX_MERGE_DEPTH, type IdentityDb, type IdentityTx } from "./db.ts";
import { toApplication, toCandidate, toRecruitmentCase } from "./rows.ts";
import { activeTraceContext } from "./trace-context.ts";

type TraceContextSource = () => Record<string, string> | undefined;

/** The write side in PostgreSQL: every unit of work is one drizzle transaction (READ COMMITTED). */
export class PgIdentityStore implements IdentityStore {
  readonly #db: IdentityDb;
  readonly #traceContext: TraceContextSource;

  constructor(db: IdentityDb, traceContext: TraceContextSource = activeTraceContext) {
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
}

/** The candidates a key leads to, followed along merges to the end of each chain. */
function survivorsQuery(keys: LookupKey[]) {
  const hashes = sql.join(
    keys.map((k) => sql`${k.hash}`),
    sql`, `,
  );
  return sql`
    WITH RECURSIVE chain(lookup_hash, candidate_uuid, next_uuid, depth) AS (
      SELECT i.lookup_hash, c.candidate_uuid, c.merged_into_candidate_uuid, 0
        FROM ${candidateIdentifiers} i JOIN ${candidates} c ON c.candidate_uuid = i.candidate_uuid
       WHERE i.lookup_hash IN (${hashes})
      UNION ALL
      SELECT chain.lookup_hash, c.candidate_uuid, c.merged_into_candidate_uuid, chain.depth + 1
        FROM chain JOIN ${candidates} c ON c.candidate_uuid = chain.next_uuid
       WHERE chain.depth < ${MAX_MERGE_DEPTH}
    )
    SELECT lookup_hash, candidate_uuid FROM chain WHERE next_uuid IS NULL`;
}

/** The survivor and every candidate merged into it, directly or along a chain. */
function mergeTreeQuery(survivorUuid: string) {
  return sql`(
    WITH RECURSIVE tree(candidate_uuid, depth) AS (
      SELECT ${survivorUuid}::uuid, 0
      UNION ALL
      SELECT c.candidate_uuid, tree.depth + 1
        FROM ${candidates} c JOIN tree ON c.merged_into_candidate_uuid = tree.candidate_uuid
       WHERE tree.depth < ${MAX_MERGE_DEPTH}
    )
    SELECT candidate_uuid FROM tree)`;
}

/** Advisory-lock key of an identifier: the first 64 bits of its keyed hash. */
export const lockKeyOf = (key: LookupKey): string => key.hash.readBigInt64BE(0).toString();

class PgIdentityTransaction implements IdentityTransaction {
  readonly #tx: IdentityTx;
  readonly #traceContext: TraceContextSource;

  constructor(tx: IdentityTx, traceContext: TraceContextSource) {
    this.#tx = tx;
    this.#traceContext = traceContext;
  }

  async lockIdentifiers(keys: LookupKey[]): Promise<void> {
    if (keys.length === 0) return;
    // Always in ascending order, so two requests sharing identifiers cannot deadlock. PostgreSQL
    // evaluates a volatile function in the select list after ORDER BY, so one statement keeps the
    // order.
    const lockKeys = `{${[...new Set(keys.map(lockKeyOf))].join(",")}}`;
    await this.#tx.execute(
      sql`SELECT pg_advisory_xact_lock(k) FROM unnest(${lockKeys}::bigint[]) AS k ORDER BY k`,
    );
  }

  async survivorsOf(keys: LookupKey[]): Promise<Map<string, string>> {
    if (keys.length === 0) return new Map();
    const result = await this.#tx.execute<{ lookup_hash: Buffer; candidate_uuid: string }>(
      survivorsQuery(keys),
    );
    return new Map(result.rows.map((r) => [r.lookup_hash.toString("hex"), r.candidate_uuid]));
  }

  async insertCandidate(candidate: Candidate): Promise<void> {
    await this.#tx.insert(candidates).values(candidate);
  }

  async linkIdentifiers(candidateUuid: string, keys: LookupKey[], at: Date): Promise<void> {
    if (keys.length === 0) return;
    const rows = keys.map((k) => ({
      lookupHash: k.hash,
      kind: k.kind,
      candidateUuid,
      createdAt: at,
    }));
    await this.#tx
      .insert(candidateIdentifiers)
      .values(rows)
      .onConflictDoNothing({ target: candidateIdentifiers.lookupHash });
  }

  async findApplicationOfSurvivor(
    survivorUuid: string,
    vacancyUuid: string,
  ): Promise<Application | undefined> {
    const [row] = await this.#tx
      .select()
      .from(applications)
      .where(
        and(
          eq(applications.vacancyUuid, vacancyUuid),
          inArray(applications.candidateUuid, mergeTreeQuery(survivorUuid)),
        ),
      )
      // The survivor's own application first, then the oldest of those merged into it.
      .orderBy(
        sql`${applications.candidateUuid} = ${survivorUuid}::uuid DESC`,
        applications.createdAt,
        applications.applicationUuid,
      )
      .limit(1);
    return row && toApplication(row);
  }

  async ensureRecruitmentCase(
    recruitmentCase: RecruitmentCase,
  ): Promise<{ recruitmentCase: RecruitmentCase; created: boolean }> {
    const [created] = await this.#tx
      .insert(recruitmentCases)
      .values(recruitmentCase)
      .onConflictDoNothing({
        target: [recruitmentCases.candidateUuid, recruitmentCases.vacancyUuid],
      })
      .returning();
    if (created) return { recruitmentCase: toRecruitmentCase(created), created: true };
    const [existing] = await this.#tx
      .select()
      .from(recruitmentCases)
      .where(
        and(
          eq(recruitmentCases.candidateUuid, recruitmentCase.candidateUuid),
          eq(recruitmentCases.vacancyUuid, recruitmentCase.vacancyUuid),
        ),
      );
    if (!existing) throw new Error("recruitment case vanished after a unique-constraint conflict");
    return { recruitmentCase: toRecruitmentCase(existing), created: false };
  }

  async touchRecruitmentCase(recruitmentCaseUuid: string, at: Date): Promise<void> {
    await this.#tx
      .update(recruitmentCases)
      .set({ updatedAt: at })
      .where(eq(recruitmentCases.recruitmentCaseUuid, recruitmentCaseUuid));
  }

  async insertApplication(application: Application): Promise<Application | undefined> {
    const [row] = await this.#tx
      .insert(applications)
      .values(application)
      .onConflictDoNothing({ target: [applications.candidateUuid, applications.vacancyUuid] })
      .returning();
    return row && toApplication(row);
  }

  async findApplication(
    candidateUuid: string,
    vacancyUuid: string,
  ): Promise<Application | undefined> {
    const [row] = await this.#tx
      .select()
      .from(applications)
      .where(
        and(
          eq(applications.candidateUuid, candidateUuid),
          eq(applications.vacancyUuid, vacancyUuid),
        ),
      );
    return row && toApplication(row);
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
