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

/** Sends a list page in the envelope with its pagination meta. */
export function sendPage(res: Response, items: unknown[], page: { page: number; perPage: number; total: number }): void {
  sendData(res, items, { pagination: pagination(page.page, page.perPage, page.total) });
}
