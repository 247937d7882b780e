export { RefreshingCache, TotalsCache, totalFromPage, pageTotal } from "./page-totals.ts";
export { PageMarks, type PageMarkOptions } from "./page-marks.ts";
