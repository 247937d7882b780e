import express from "express";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { silentLogger, startApp, type StartedApp } from "@svc/testing";
import {
  createHttpApp,
  listBodyPool,
  listEnvelopeBytes,
  sendPage,
  type Meta,
} from "../src/index.ts";

const meta: Meta = {
  request_id: "00000000-0000-4000-8000-000000000000",
  api_version: "v1",
  pagination: { page: 2, per_page: 3, total: 7, total_pages: 3 },
};
const wholeEnvelope = (items: unknown[]) =>
  Buffer.from(JSON.stringify({ success: true, data: items, meta }));

// Items that exercise every way JSON.stringify differs between strings and values.
const ITEMS: Record<string, unknown[]> = {
  "no items": [],
  "one ASCII item": [{ id: "a", n: 1, ok: true, none: null }],
  "Latin-1 and outside it (en dash, emoji, CJK)": [
    { html: "<p>patiëntenzorg – “quoted” 😀 中文</p>" },
    { html: "plain" },
  ],
  "escapes (quotes, backslashes, control characters, U+2028, lone surrogates)": [
    { s: 'a"b\\c\n\t\u0001\u2028\ud800x\udfff' },
  ],
  "nested objects and arrays": [{ a: { b: [1, { c: [null, "x"] }] } }, [1, 2]],
  "values JSON has no form for": [
    undefined,
    () => 1,
    { skipped: undefined, fn: () => 1, date: new Date(0) },
  ],
};

describe("listEnvelopeBytes", () => {
  it.each(Object.entries(ITEMS))(
    "is byte for byte JSON.stringify of the whole envelope: %s",
    (_name, items) => {
      expect(listEnvelopeBytes(items, meta).equals(wholeEnvelope(items))).toBe(true);
    },
  );
});

// Pages of 100 items near and past what a pooled buffer holds, by how many UTF-8 bytes a UTF-16
// unit takes. An en dash is one unit and three bytes, so a page of them is exactly as large as its
// bound.
const perItem = (unitsPerPage: number) => Math.floor(unitsPerPage / 100);
const pageOf = (text: string) => Array.from({ length: 100 }, (_, i) => ({ i, s: text }));
const SIZED_PAGES: Record<string, unknown[]> = {
  "en dashes, bound just within a pooled buffer": pageOf(
    "–".repeat(perItem(listBodyPool.bufferBytes / 3) - 20),
  ),
  // Past the pool's buffers by its bound, though two bytes a unit would still fit one.
  "en dashes, bound past a pooled buffer: a buffer of the exact size": pageOf(
    "–".repeat(perItem(listBodyPool.bufferBytes / 2.5)),
  ),
  "emoji (four bytes for two units)": pageOf(
    "😀".repeat(perItem(listBodyPool.bufferBytes / 6) - 20),
  ),
  "ASCII past a pooled buffer": pageOf("x".repeat(perItem(listBodyPool.bufferBytes))),
};

const bigPage = (n: number) =>
  Array.from({ length: 100 }, (_, i) => ({
    n,
    i,
    html: `<p>${n}–${i} “${"x".repeat(1_900 + (n % 7))}”</p>`,
  }));

describe("sendPage over HTTP", () => {
  let app: StartedApp;
  const items = ITEMS["Latin-1 and outside it (en dash, emoji, CJK)"]!;
  beforeAll(async () => {
    const routes = express.Router();
    routes.get("/v1/pages", (_req, res) =>
      sendPage(res, items, { page: 1, perPage: 25, total: 2 }),
    );
    // ~200 KB pages whose every byte depends on n, so a body buffer reused too early shows.
    routes.get("/v1/big/:n", (req, res) =>
      sendPage(res, bigPage(Number(req.params.n)), { page: 1, perPage: 100, total: 100 }),
    );
    routes.get("/v1/sized/:name", (req, res) =>
      sendPage(res, SIZED_PAGES[req.params.name] ?? [], { page: 1, perPage: 100, total: 100 }),
    );
    app = await startApp(
      createHttpApp({
        platform: { service: "demo", version: "0.1.0", environment: "sandbox" },
        logger: silentLogger(),
        routes,
      }),
    );
  });
  afterAll(() => app.close());

  it("answers JSON in UTF-8 with the exact length and the envelope's pagination", async () => {
    const res = await fetch(`${app.baseUrl}/v1/pages`);
    const raw = Buffer.from(await res.arrayBuffer());
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("application/json; charset=utf-8");
    expect(Number(res.headers.get("content-length"))).toBe(raw.length);
    const body = JSON.parse(raw.toString("utf8")) as {
      success: boolean;
      data: unknown[];
      meta: Meta;
    };
    expect(body.success).toBe(true);
    expect(body.data).toEqual(items);
    expect(body.meta.pagination).toEqual({ page: 1, per_page: 25, total: 2, total_pages: 1 });
    expect(body.meta.request_id).toBe(res.headers.get("x-request-id"));
  });

  it("sends every page intact while many are in flight at once, reusing body buffers only once written", async () => {
    const allocatedBefore = listBodyPool.allocated;
    for (let round = 0; round < 4; round++) {
      const numbers = Array.from({ length: 40 }, (_, i) => round * 100 + i);
      const bodies = await Promise.all(
        numbers.map(
          async (n) =>
            (await fetch(`${app.baseUrl}/v1/big/${n}`)).json() as Promise<{ data: unknown[] }>,
        ),
      );
      bodies.forEach((body, i) => expect(body.data).toEqual(bigPage(numbers[i] as number)));
    }
    // 160 pages of ~200 KB: buffers were reused, at most one per page in flight.
    expect(listBodyPool.allocated - allocatedBefore).toBeLessThanOrEqual(40);
  });

  it.each(Object.keys(SIZED_PAGES))(
    "sends a page byte for byte as JSON.stringify of its envelope: %s",
    async (name) => {
      const res = await fetch(`${app.baseUrl}/v1/sized/${encodeURIComponent(name)}`);
      const raw = Buffer.from(await res.arrayBuffer());
      const body = JSON.parse(raw.toString("utf8")) as { meta: Meta };
      expect(Number(res.headers.get("content-length"))).toBe(raw.length);
      expect(
        raw.equals(
          Buffer.from(JSON.stringify({ success: true, data: SIZED_PAGES[name], meta: body.meta })),
        ),
      ).toBe(true);
    },
  );

  it("answers HEAD with the headers and no body", async () => {
    const res = await fetch(`${app.baseUrl}/v1/pages`, { method: "HEAD" });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("application/json; charset=utf-8");
    expect(Number(res.headers.get("content-length"))).toBeGreaterThan(0);
    expect((await res.arrayBuffer()).byteLength).toBe(0);
  });
});
