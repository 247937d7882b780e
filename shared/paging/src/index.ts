export { RefreshingCache, TotalsCache, totalFromPage, pageTotal } from "./page-totals.ts";
export { PageMarks, type PageMarkOptions } from "./page-marks.ts";
export { decodeCursor, encodeCursor, MAX_CURSOR_LENGTH } from "./cursor.ts";
