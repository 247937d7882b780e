/**
 * Reading the mirror back, for its writer only (the CRM reconciling what it sent): one account by
 * its id, or every account in (modified_on, crm_id) order walked by an opaque cursor.
 */
import { NotFoundError } from "@svc/errors";
import { cursorPage, cutPage, openCursorWalk, type CursorPage } from "@svc/paging";
import type { CrmMirrorStore } from "../ports.ts";
import type { MirroredAccount, MirrorPosition } from "./account.ts";

export async function getMirroredAccount(
  store: CrmMirrorStore,
  crmId: string,
): Promise<MirroredAccount> {
  const account = await store.get(crmId);
  if (!account) throw new NotFoundError("no account with this crm_id");
  return account;
}

const MICRO_ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;

/** A cursor's position: after (m, i), or null and null for the start. */
function parsePosition(c: Record<string, unknown>): MirrorPosition | null | undefined {
  if (c.m === null && c.i === null) return null;
  if (typeof c.m !== "string" || !MICRO_ISO.test(c.m)) return undefined;
  if (Number.isNaN(Date.parse(c.m))) return undefined;
  if (typeof c.i !== "string" || c.i.length === 0 || c.i.length > 64) return undefined;
  return { modifiedOn: c.m, crmId: c.i };
}

/**
 * One page of the mirror, oldest `modified_on` first (ties by crm_id), tombstones included. The
 * next cursor resumes after the last account shown; an account written later with an older
 * `modified_on` than that lands behind it, so a reconciliation walks from the start.
 */
export async function listMirroredAccounts(
  store: CrmMirrorStore,
  query: { cursor?: string | undefined; perPage: number },
): Promise<CursorPage<MirroredAccount>> {
  const walk = openCursorWalk<MirrorPosition | null>({
    cursor: query.cursor,
    start: null,
    parse: parsePosition,
    listName: "list",
  });
  const rows = await store.page(walk.state, query.perPage + 1);
  const { shown, hasMore } = cutPage(rows, query.perPage);
  const last = shown.at(-1);
  const next = last ? { modifiedOn: last.modifiedOn, crmId: last.crmId } : walk.state;
  const total = await store.count();
  return cursorPage(walk, {
    shown,
    hasMore,
    perPage: query.perPage,
    total,
    next: { m: next?.modifiedOn ?? null, i: next?.crmId ?? null },
  });
}
