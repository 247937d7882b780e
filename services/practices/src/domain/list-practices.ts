import { NotFoundError } from "@svc/errors";
import { readListPage, type ListPage, type TotalsCache } from "@svc/paging";
import { listKey, type Practice, type PracticeFilters } from "./practice.ts";
import type { PracticeSource } from "./ports.ts";

export interface PracticeReader {
  source: PracticeSource;
  totals: TotalsCache;
  /** The primary system's calendar date now (YYYY-MM-DD). */
  today: () => string;
}

export type PracticePage = ListPage<Practice>;

/**
 * GET /v1/practices: both sources, filtered, in practice_id order (@svc/paging readListPage). A
 * page that is not full proves its total; only a full page (or one past the end) needs the COUNT
 * over the union, reused for up to the cache's lifetime (TotalsCache).
 */
export function listPractices(
  reader: PracticeReader,
  query: { page: number; perPage: number; filters: PracticeFilters },
): Promise<PracticePage> {
  const today = reader.today();
  const { filters } = query;
  return readListPage(
    reader.totals,
    { page: query.page, perPage: query.perPage },
    {
      key: listKey(filters, today),
      read: (window) => reader.source.page(filters, today, window),
      count: () => reader.source.count(filters, today),
    },
  );
}

/** GET /v1/practices/{practice_id}. */
export async function getPractice(reader: PracticeReader, practiceId: string): Promise<Practice> {
  const practice = await reader.source.get(practiceId, reader.today());
  if (!practice) throw new NotFoundError("no practice with this practice_id");
  return practice;
}
