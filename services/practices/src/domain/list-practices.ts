import { NotFoundError } from "@svc/errors";
import { pageTotal, totalFromPage, type TotalsCache } from "@svc/paging";
import { listKey, type Practice, type PracticeFilters } from "./practice.ts";
import type { PracticeSource } from "./ports.ts";

export interface PracticeReader {
  source: PracticeSource;
  totals: TotalsCache;
  /** The primary system's calendar date now (YYYY-MM-DD). */
  today: () => string;
}

export interface PracticePage {
  items: Practice[];
  page: number;
  perPage: number;
  total: number;
}

/** GET /v1/practices: both sources, filtered, in practice_id order. */
export async function listPractices(
  reader: PracticeReader,
  query: { page: number; perPage: number; filters: PracticeFilters },
): Promise<PracticePage> {
  const today = reader.today();
  const { filters, page, perPage } = query;
  const offset = (page - 1) * perPage;
  const items = await reader.source.page(filters, today, { limit: perPage, offset });
  // A page that is not full proves the total; only a full page (or one past the end) needs the
  // COUNT over the union, reused for up to the cache's lifetime (TotalsCache).
  let total = totalFromPage(items.length, offset, perPage);
  if (total === undefined) {
    total = pageTotal(
      items.length,
      offset,
      perPage,
      await reader.totals.get(listKey(filters, today), () => reader.source.count(filters, today)),
    );
  }
  return { items, page, perPage, total };
}

/** GET /v1/practices/{practice_id}. */
export async function getPractice(reader: PracticeReader, practiceId: string): Promise<Practice> {
  const practice = await reader.source.get(practiceId, reader.today());
  if (!practice) throw new NotFoundError("no practice with this practice_id");
  return practice;
}
