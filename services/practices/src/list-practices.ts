import { NotFoundError } from "@svc/http";
import type { Practice, PracticeFilters, PracticeSource } from "./practice.ts";
import type { TotalsCache } from "./totals-cache.ts";

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

/**
 * A page that is not full ends the list, so its total is exact without counting: offset + rows.
 * Only a full page (or an empty page past the start) needs the COUNT over the union.
 */
function totalFromPage(rows: number, offset: number, perPage: number): number | undefined {
  if (rows < perPage && (rows > 0 || offset === 0)) return offset + rows;
  return undefined;
}

/** GET /v1/practices (spec 4.5): both sources, filtered, in practice_id order. */
export async function listPractices(reader: PracticeReader, query: { page: number; perPage: number; filters: PracticeFilters }): Promise<PracticePage> {
  const today = reader.today();
  const { filters, page, perPage } = query;
  const offset = (page - 1) * perPage;
  const items = await reader.source.page(filters, today, { limit: perPage, offset });
  let total = totalFromPage(items.length, offset, perPage);
  if (total === undefined) {
    const key = JSON.stringify([today, filters.active, filters.visible, filters.language, filters.province, filters.search]);
    const counted = await reader.totals.get(key, () => reader.source.count(filters, today));
    // A reused total may predate rows this (full) page already shows; never report fewer than it proves.
    total = items.length > 0 ? Math.max(counted, offset + items.length) : counted;
  }
  return { items, page, perPage, total };
}

/** GET /v1/practices/{practice_id} (spec 4.6). */
export async function getPractice(reader: PracticeReader, practiceId: string): Promise<Practice> {
  const practice = await reader.source.get(practiceId, reader.today());
  if (!practice) throw new NotFoundError("no practice with this practice_id");
  return practice;
}
