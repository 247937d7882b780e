import type { Response } from "express";
import { BodyPool } from "./body-pool.ts";

export const API_VERSION = "v1";

export interface Pagination {
  page: number;
  per_page: number;
  total: number;
  total_pages: number;
}

/** A list walked by an opaque cursor (the events feed) adds where to read on. */
export interface CursorPagination extends Pagination {
  next_cursor: string;
  has_more: boolean;
}

export interface Meta {
  request_id: string;
  api_version: typeof API_VERSION;
  pagination?: Pagination | CursorPagination;
}

/** The request id that request-id middleware put on res.locals. */
export function requestIdOf(res: Response): string {
  return String(res.locals.requestId);
}

export function metaFor(res: Response, pagination?: Pagination | CursorPagination): Meta {
  return pagination
    ? { request_id: requestIdOf(res), api_version: API_VERSION, pagination }
    : { request_id: requestIdOf(res), api_version: API_VERSION };
}

/** Sends the contract's success envelope. */
export function sendData(
  res: Response,
  data: unknown,
  options: { status?: number; pagination?: Pagination | CursorPagination } = {},
): void {
  res
    .status(options.status ?? 200)
    .json({ success: true, data, meta: metaFor(res, options.pagination) });
}

export function pagination(page: number, perPage: number, total: number): Pagination {
  return { page, per_page: perPage, total, total_pages: Math.ceil(total / perPage) };
}

/**
 * The pagination block of a page of a cursor walk (@svc/paging's CursorPage). `total_pages` is
 * at least the page shown: a walk may pass more pages than the total now fills.
 */
export function cursorPagination(page: {
  page: number;
  perPage: number;
  total: number;
  nextCursor: string;
  hasMore: boolean;
}): CursorPagination {
  return {
    page: page.page,
    per_page: page.perPage,
    total: page.total,
    total_pages: Math.max(page.page, Math.ceil(page.total / page.perPage)),
    next_cursor: page.nextCursor,
    has_more: page.hasMore,
  };
}

/**
 * The success envelope of a list, byte for byte what `JSON.stringify` of the whole envelope gives,
 * built item by item: one character outside Latin-1 anywhere (a pasted en dash) would make V8 build
 * the whole page as a two-byte string, slow to encode as UTF-8; item by item, only the items
 * holding one pay that. Each string is encoded straight into one buffer.
 * Why: docs/decisions/list-pages.md.
 */
export function listEnvelopeBytes(items: readonly unknown[], meta: Meta): Buffer {
  const envelope = listEnvelopeParts(items, meta);
  return writeListEnvelope(envelope, Buffer.allocUnsafe(utf8Length(envelope)));
}

interface ListEnvelopeParts {
  json: string[];
  tail: string;
  /** UTF-16 code units of the whole envelope. */
  units: number;
}

const LIST_HEAD = '{"success":true,"data":[';

function listEnvelopeParts(items: readonly unknown[], meta: Meta): ListEnvelopeParts {
  // As in an array: what JSON cannot represent (undefined, a function) is null.
  const json = items.map((item) => JSON.stringify(item) ?? "null");
  const tail = `],"meta":${JSON.stringify(meta)}}`;
  let units = LIST_HEAD.length + tail.length + Math.max(0, json.length - 1);
  for (const item of json) units += item.length;
  return { json, tail, units };
}

/**
 * The most bytes the envelope can take as UTF-8: three per UTF-16 code unit (a character of the
 * Basic Multilingual Plane takes at most three bytes, a surrogate pair four for its two units, and
 * JSON.stringify escapes lone surrogates). A buffer this large holds the body without a UTF-8
 * length pass over every item first.
 */
function utf8Bound(envelope: ListEnvelopeParts): number {
  return 3 * envelope.units;
}

/** The envelope's exact length as UTF-8. */
function utf8Length(envelope: ListEnvelopeParts): number {
  let length =
    LIST_HEAD.length + Buffer.byteLength(envelope.tail) + Math.max(0, envelope.json.length - 1);
  for (const item of envelope.json) length += Buffer.byteLength(item);
  return length;
}

/** Writes the envelope at the start of `body` (at least its UTF-8 length); returns those bytes. */
function writeListEnvelope(envelope: ListEnvelopeParts, body: Buffer): Buffer {
  let offset = body.write(LIST_HEAD, 0, "latin1");
  envelope.json.forEach((item, i) => {
    if (i > 0) offset = body.writeUInt8(0x2c, offset); // ","
    offset += body.write(item, offset);
  });
  offset += body.write(envelope.tail, offset);
  return body.subarray(0, offset);
}

/**
 * List bodies (BodyPool). A buffer holds the bound (utf8Bound) of a page of 100 vacancies; its
 * pages become resident only as far as bodies have filled it.
 */
export const listBodyPool = new BodyPool({ bufferBytes: 640 * 1024, maxFree: 8, idleMs: 10_000 });

/** Sends a list page in the envelope with its pagination meta; its buffer is reused once sent. */
export function sendPage(
  res: Response,
  items: readonly unknown[],
  page: { page: number; perPage: number; total: number },
): void {
  const envelope = listEnvelopeParts(
    items,
    metaFor(res, pagination(page.page, page.perPage, page.total)),
  );
  // A body whose bound is larger than the pool's buffers gets one of its exact size instead.
  const bound = utf8Bound(envelope);
  const { buffer, release } = listBodyPool.take(
    bound <= listBodyPool.bufferBytes ? bound : utf8Length(envelope),
  );
  // `finish`: the socket has written the body. A response that ends otherwise keeps its buffer.
  res.once("finish", release);
  // The Content-Type res.json sets; express adds Content-Length and leaves HEAD bodiless.
  res
    .status(200)
    .set("Content-Type", "application/json; charset=utf-8")
    .send(writeListEnvelope(envelope, buffer));
}
