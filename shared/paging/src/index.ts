export { RefreshingCache, TotalsCache, totalFromPage, pageTotal } from "./page-totals.ts";
export {
  readListPage,
  type CountedList,
  type ListPage,
  type ListPageRequest,
  type PageWindow,
} from "./list-page.ts";
export { PageMarks, type PageMarkOptions } from "./page-marks.ts";
export { decodeCursor, encodeCursor, MAX_CURSOR_LENGTH } from "./cursor.ts";
export {
  cursorPage,
  cutPage,
  openCursorWalk,
  type CursorPage,
  type CursorWalk,
} from "./cursor-page.ts";
