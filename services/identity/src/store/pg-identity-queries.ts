import { and, asc, count, eq, gte, inArray, type SQL } from "drizzle-orm";
import type { PgTable } from "drizzle-orm/pg-core";
import { guardStore } from "./guard-store.ts";
import { applications, candidates, recruitmentCases } from "./schema.ts";
import type {
  Application,
  ApplicationFilter,
  Candidate,
  CandidateFilter,
  Page,
  PageRequest,
  RecruitmentCase,
  RecruitmentCaseFilter,
  RecruitmentCaseWithApplications,
} from "../domain/model.ts";
import type { IdentityQueries } from "../domain/ports.ts";
import type { IdentityDb } from "./db.ts";
import { toApplication, toCandidate, toRecruitmentCase } from "./rows.ts";

const offsetOf = (p: PageRequest) => (p.page - 1) * p.perPage;

/** A filter condition only when the filter was given. */
const when = <T>(value: T | undefined, condition: (v: T) => SQL): SQL | undefined =>
  value === undefined ? undefined : condition(value);

/**
 * The read side in PostgreSQL. Lists are ordered by (created_at, uuid): a total order in which new
 * rows only ever append, so a page keeps its items while a client walks the list.
 */
export class PgIdentityQueries implements IdentityQueries {
  readonly #db: IdentityDb;

  constructor(db: IdentityDb) {
    this.#db = db;
  }

  async #total(table: PgTable, where: SQL | undefined): Promise<number> {
    const [row] = await this.#db.select({ n: count() }).from(table).where(where);
    return row?.n ?? 0;
  }

  listCandidates(f: CandidateFilter): Promise<Page<Candidate>> {
    const where = and(
      when(f.status, (v) => eq(candidates.status, v)),
      when(f.createdSince, (v) => gte(candidates.createdAt, v)),
    );
    return guardStore(async () => {
      const [rows, total] = await Promise.all([
        this.#db
          .select()
          .from(candidates)
          .where(where)
          .orderBy(asc(candidates.createdAt), asc(candidates.candidateUuid))
          .limit(f.perPage)
          .offset(offsetOf(f)),
        this.#total(candidates, where),
      ]);
      return { items: rows.map(toCandidate), total };
    });
  }

  getCandidate(candidateUuid: string): Promise<Candidate | undefined> {
    return guardStore(async () => {
      const [row] = await this.#db
        .select()
        .from(candidates)
        .where(eq(candidates.candidateUuid, candidateUuid));
      return row && toCandidate(row);
    });
  }

  listApplications(f: ApplicationFilter): Promise<Page<Application>> {
    const where = and(
      when(f.candidateUuid, (v) => eq(applications.candidateUuid, v)),
      when(f.vacancyUuid, (v) => eq(applications.vacancyUuid, v)),
      when(f.practiceId, (v) => eq(applications.practiceId, v)),
      when(f.resolution, (v) => eq(applications.resolution, v)),
      when(f.createdSince, (v) => gte(applications.createdAt, v)),
    );
    return guardStore(async () => {
      const [rows, total] = await Promise.all([
        this.#db
          .select()
          .from(applications)
          .where(where)
          .orderBy(asc(applications.createdAt), asc(applications.applicationUuid))
          .limit(f.perPage)
          .offset(offsetOf(f)),
        this.#total(applications, where),
      ]);
      return { items: rows.map(toApplication), total };
    });
  }

  getApplication(applicationUuid: string): Promise<Application | undefined> {
    return guardStore(async () => {
      const [row] = await this.#db
        .select()
        .from(applications)
        .where(eq(applications.applicationUuid, applicationUuid));
      return row && toApplication(row);
    });
  }

  listRecruitmentCases(f: RecruitmentCaseFilter): Promise<Page<RecruitmentCaseWithApplications>> {
    const where = and(
      when(f.candidateUuid, (v) => eq(recruitmentCases.candidateUuid, v)),
      when(f.vacancyUuid, (v) => eq(recruitmentCases.vacancyUuid, v)),
      when(f.practiceId, (v) => eq(recruitmentCases.practiceId, v)),
      when(f.createdSince, (v) => gte(recruitmentCases.createdAt, v)),
    );
    return guardStore(async () => {
      const [rows, total] = await Promise.all([
        this.#db
          .select()
          .from(recruitmentCases)
          .where(where)
          .orderBy(asc(recruitmentCases.createdAt), asc(recruitmentCases.recruitmentCaseUuid))
          .limit(f.perPage)
          .offset(offsetOf(f)),
        this.#total(recruitmentCases, where),
      ]);
      return { items: await this.#withApplications(rows.map(toRecruitmentCase)), total };
    });
  }

  getRecruitmentCase(
    recruitmentCaseUuid: string,
  ): Promise<RecruitmentCaseWithApplications | undefined> {
    return guardStore(async () => {
      const [row] = await this.#db
        .select()
        .from(recruitmentCases)
        .where(eq(recruitmentCases.recruitmentCaseUuid, recruitmentCaseUuid));
      if (!row) return undefined;
      const [withApplications] = await this.#withApplications([toRecruitmentCase(row)]);
      return withApplications;
    });
  }

  async #withApplications(cases: RecruitmentCase[]): Promise<RecruitmentCaseWithApplications[]> {
    if (cases.length === 0) return [];
    const links = await this.#db
      .select({
        applicationUuid: applications.applicationUuid,
        recruitmentCaseUuid: applications.recruitmentCaseUuid,
      })
      .from(applications)
      .where(
        inArray(
          applications.recruitmentCaseUuid,
          cases.map((c) => c.recruitmentCaseUuid),
        ),
      )
      .orderBy(asc(applications.createdAt), asc(applications.applicationUuid));
    return cases.map((c) => ({
      ...c,
      applicationUuids: links
        .filter((l) => l.recruitmentCaseUuid === c.recruitmentCaseUuid)
        .map((l) => l.applicationUuid),
    }));
  }
}
