/**
 * The CRM mirror (production only): idempotent writes ordered by the CRM's own
 * modified_on, tombstones, all-or-nothing bulk, strict validation, scope and failures; against a
 * real PostgreSQL with this service's migrations.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPgPool, runMigrations } from "@svc/db";
import {
  createTempPgDatabase,
  fetchJson,
  unusedPort,
  type JsonResponse,
  type TempDatabase,
} from "@svc/testing";
import { createLogger } from "@svc/logging";
import { loadConfig } from "../src/config.ts";
import { PgCrmMirrorStore } from "../src/store/pg-crm-mirror-store.ts";
import { MIGRATIONS_FOLDER } from "../src/store/migrations.ts";
import { NOW, startPractices, type Envelope, type PracticesApp } from "./support/harness.ts";

interface Result {
  crm_id: string;
  applied: boolean;
  outcome: string;
  modified_on: string;
  deleted: boolean;
}

let database: TempDatabase;
let pool: ReturnType<typeof createPgPool>;
let svc: PracticesApp;
let token: string;

function account(overrides: Record<string, unknown> = {}) {
  return {
    name: "Tandartspraktijk Vermeulen",
    alias: "TP Vermeulen",
    organisation_type: "Groepspraktijk",
    language: "nl",
    identifiers: { vat: "BE0412.345.678" },
    address: {
      street: "Kortrijksesteenweg 112",
      postal_code: "9000",
      city: "Gent",
      province: "Oost-Vlaanderen",
      country: "BE",
    },
    contact: { email: "info@example-praktijk.be", phone: "09 222 33 44" },
    period: { start_date: "2015-01-01", stop_date: "2999-12-31" },
    modified_on: "2025-06-01T10:00:00Z",
    ...overrides,
  };
}

async function send<T = Result>(
  method: string,
  path: string,
  options: { body?: unknown; headers?: Record<string, string>; auth?: string | null } = {},
): Promise<JsonResponse<Envelope<T>>> {
  const headers: Record<string, string> = { accept: "application/json", ...options.headers };
  const auth = options.auth === undefined ? token : options.auth;
  if (auth !== null) headers.authorization = `Bearer ${auth}`;
  if (options.body !== undefined) headers["content-type"] ??= "application/json";
  const body =
    options.body === undefined
      ? undefined
      : typeof options.body === "string"
        ? options.body
        : JSON.stringify(options.body);
  return fetchJson<Envelope<T>>(`${svc.app.baseUrl}${path}`, { method, headers, body });
}

const put = (id: string, body: unknown) =>
  send("PUT", `/v1/crm-mirror/accounts/${encodeURIComponent(id)}`, { body });
const del = (id: string, modifiedOn?: string) =>
  send("DELETE", `/v1/crm-mirror/accounts/${encodeURIComponent(id)}`, {
    headers: modifiedOn === undefined ? {} : { "CRM-Modified-On": modifiedOn },
  });
const bulk = (accounts: unknown[]) =>
  send<{ received: number; applied: number; results: Array<Result & { index: number }> }>(
    "POST",
    "/v1/crm-mirror/accounts:bulk",
    { body: { accounts } },
  );

async function stored(id: string): Promise<Record<string, unknown> | undefined> {
  const { rows } = await pool.query(
    "SELECT *, period_start::text AS period_start, period_stop::text AS period_stop FROM practices.crm_accounts WHERE crm_id = $1",
    [id],
  );
  return rows[0];
}

beforeAll(async () => {
  database = await createTempPgDatabase();
  pool = createPgPool({ url: database.url, schema: "practices", applicationName: "test" });
  await runMigrations(pool, { schema: "practices", migrationsFolder: MIGRATIONS_FOLDER });
  svc = await startPractices({
    legacyUrl: loadConfig({}).LEGACY_DATABASE_URL,
    env: { ENVIRONMENT: "production" },
    crmMirror: new PgCrmMirrorStore(pool, { now: () => NOW }),
  });
  token = await svc.issuer.mint({ scope: "crm-mirror:write", clientId: "crm-mirror" });
});
afterAll(async () => {
  await svc?.close();
  await pool?.end();
  await database?.drop();
});

describe("PUT /v1/crm-mirror/accounts/{crm_id}", () => {
  it("creates an account (201) and stores every field with the CRM's version", async () => {
    const res = await put("acc-create", account());
    expect(res.status).toBe(201);
    expect(res.body.data).toEqual({
      crm_id: "acc-create",
      applied: true,
      outcome: "created",
      modified_on: "2025-06-01T10:00:00.000000Z",
      deleted: false,
    });
    expect(await stored("acc-create")).toMatchObject({
      name: "Tandartspraktijk Vermeulen",
      alias: "TP Vermeulen",
      organisation_type: "Groepspraktijk",
      language: "nl",
      vat: "BE0412.345.678",
      street: "Kortrijksesteenweg 112",
      postal_code: "9000",
      city: "Gent",
      province: "Oost-Vlaanderen",
      country: "BE",
      email: "info@example-praktijk.be",
      phone: "09 222 33 44",
      period_start: "2015-01-01",
      period_stop: "2999-12-31",
      deleted: false,
    });
  });

  it("acknowledges a replay of the same write without applying it (idempotent)", async () => {
    await put("acc-replay", account());
    const before = await stored("acc-replay");
    const res = await put("acc-replay", account({ modified_on: "2025-06-01T12:00:00+02:00" }));
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({
      applied: false,
      outcome: "duplicate",
      modified_on: "2025-06-01T10:00:00.000000Z",
    });
    expect(await stored("acc-replay")).toEqual(before);
  });

  it("replaces with a newer write and ignores an older one that arrives after it", async () => {
    await put("acc-order", account({ name: "v1", modified_on: "2025-06-01T10:00:00Z" }));
    expect(
      (await put("acc-order", account({ name: "v3", modified_on: "2025-06-03T10:00:00Z" }))).body
        .data,
    ).toMatchObject({ applied: true, outcome: "replaced" });
    const late = await put(
      "acc-order",
      account({ name: "v2", modified_on: "2025-06-02T10:00:00Z" }),
    );
    expect(late.status).toBe(200);
    expect(late.body.data).toEqual({
      crm_id: "acc-order",
      applied: false,
      outcome: "superseded",
      modified_on: "2025-06-03T10:00:00.000000Z",
      deleted: false,
    });
    expect((await stored("acc-order"))?.name).toBe("v3");
  });

  it("orders versions to the microsecond", async () => {
    await put("acc-micro", account({ name: "first", modified_on: "2025-06-01T10:00:00.000001Z" }));
    expect(
      (
        await put(
          "acc-micro",
          account({ name: "second", modified_on: "2025-06-01T10:00:00.000002Z" }),
        )
      ).body.data.outcome,
    ).toBe("replaced");
    expect(
      (
        await put(
          "acc-micro",
          account({ name: "late", modified_on: "2025-06-01T10:00:00.0000019Z" }),
        )
      ).body.data.outcome,
    ).toBe("superseded");
    expect((await stored("acc-micro"))?.name).toBe("second");
  });

  it("keeps the stored version when another write claims the same modified_on with other content", async () => {
    await put("acc-tie", account({ name: "first" }));
    const res = await put("acc-tie", account({ name: "other" }));
    expect(res.body.data).toMatchObject({ applied: false, outcome: "superseded" });
    expect((await stored("acc-tie"))?.name).toBe("first");
  });

  it("converges on the newest version when many writes for one account race", async () => {
    const days = [7, 3, 9, 1, 5, 8, 2, 6, 4, 10, 12, 11];
    const results = await Promise.all(
      days.map((d) =>
        put(
          "acc-race",
          account({
            name: `day ${d}`,
            modified_on: `2025-05-${String(d).padStart(2, "0")}T08:00:00Z`,
          }),
        ),
      ),
    );
    expect(results.every((r) => r.status === 200 || r.status === 201)).toBe(true);
    expect(results.filter((r) => r.body.data.outcome === "created")).toHaveLength(1);
    expect((await stored("acc-race"))?.name).toBe("day 12");
  });

  it("accepts ids that need URL encoding", async () => {
    expect((await put("ACC/2009/117", account())).status).toBe(201);
    expect((await stored("ACC/2009/117"))?.crm_id).toBe("ACC/2009/117");
  });
});

describe("DELETE /v1/crm-mirror/accounts/{crm_id}", () => {
  it("leaves a tombstone that an older upsert cannot undo, while a newer one recreates the account", async () => {
    await put("acc-del", account({ modified_on: "2025-06-01T10:00:00Z" }));
    const res = await del("acc-del", "2025-06-02T10:00:00Z");
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({
      crm_id: "acc-del",
      applied: true,
      outcome: "deleted",
      modified_on: "2025-06-02T10:00:00.000000Z",
      deleted: true,
    });
    expect(await stored("acc-del")).toMatchObject({
      deleted: true,
      name: null,
      street: null,
      email: null,
    });
    const older = await put("acc-del", account({ modified_on: "2025-06-01T18:00:00Z" }));
    expect(older.body.data).toMatchObject({ applied: false, outcome: "superseded", deleted: true });
    expect((await stored("acc-del"))?.deleted).toBe(true);
    const newer = await put("acc-del", account({ modified_on: "2025-06-03T10:00:00Z" }));
    expect(newer.status).toBe(201);
    expect(newer.body.data).toMatchObject({ applied: true, outcome: "created", deleted: false });
  });

  it("records a delete for an account it never saw, so a delayed older create stays deleted", async () => {
    expect((await del("acc-unseen", "2025-06-05T00:00:00Z")).body.data).toMatchObject({
      applied: true,
      outcome: "deleted",
    });
    expect(
      (await put("acc-unseen", account({ modified_on: "2025-06-04T00:00:00Z" }))).body.data,
    ).toMatchObject({ applied: false, outcome: "superseded" });
  });

  it("acknowledges a replayed delete and ignores a delete older than the stored version", async () => {
    await put("acc-del2", account({ modified_on: "2025-06-10T00:00:00Z" }));
    expect((await del("acc-del2", "2025-06-09T00:00:00Z")).body.data).toMatchObject({
      applied: false,
      outcome: "superseded",
      deleted: false,
    });
    await del("acc-del2", "2025-06-11T00:00:00Z");
    expect((await del("acc-del2", "2025-06-11T00:00:00Z")).body.data).toMatchObject({
      applied: false,
      outcome: "duplicate",
      deleted: true,
    });
  });

  it("answers 422 naming the header when the CRM's modified-on is missing or not a date-time", async () => {
    for (const header of [undefined, "yesterday", "2025-06-01T10:00:00"]) {
      const res = await del("acc-x", header);
      expect(res.status).toBe(422);
      expect(res.body.error?.details?.map((d) => d.field)).toEqual(["CRM-Modified-On"]);
    }
  });
});

describe("POST /v1/crm-mirror/accounts:bulk", () => {
  it("applies every record in order and reports each by index", async () => {
    const res = await bulk([
      { crm_id: "bulk-a", ...account({ name: "a1", modified_on: "2025-06-01T00:00:00Z" }) },
      { crm_id: "bulk-b", ...account() },
      { crm_id: "bulk-a", ...account({ name: "a2", modified_on: "2025-06-02T00:00:00Z" }) },
      { crm_id: "bulk-a", ...account({ name: "a0", modified_on: "2025-05-31T00:00:00Z" }) },
    ]);
    expect(res.status).toBe(200);
    expect(res.body.data.received).toBe(4);
    expect(res.body.data.applied).toBe(3);
    expect(res.body.data.results.map((r) => [r.index, r.crm_id, r.outcome])).toEqual([
      [0, "bulk-a", "created"],
      [1, "bulk-b", "created"],
      [2, "bulk-a", "replaced"],
      [3, "bulk-a", "superseded"],
    ]);
    expect((await stored("bulk-a"))?.name).toBe("a2");
  });

  it("stores nothing when one record is bad, and names every bad field with its record index", async () => {
    const res = await bulk([
      { crm_id: "bulk-ok-1", ...account() },
      {
        crm_id: "bulk-bad",
        ...account({
          address: { ...account().address, postal_code: 9000 },
          period: { start_date: "2024-02-30", stop_date: null },
        }),
      },
      { crm_id: "bulk-ok-2", ...account() },
      { ...account() },
    ]);
    expect(res.status).toBe(422);
    expect(res.body.error?.details?.map((d) => d.field).sort()).toEqual([
      "accounts[1].address.postal_code",
      "accounts[1].period.start_date",
      "accounts[3].crm_id",
    ]);
    for (const id of ["bulk-ok-1", "bulk-bad", "bulk-ok-2"])
      expect(await stored(id)).toBeUndefined();
  });

  it("takes 1,000 realistic records in one request", async () => {
    const accounts = Array.from({ length: 1000 }, (_, i) => ({
      crm_id: `bulk-k-${i}`,
      ...account({ name: `Praktijk ${i} ${"x".repeat(200)}` }),
    }));
    const res = await bulk(accounts);
    expect(res.status).toBe(200);
    expect(res.body.data.applied).toBe(1000);
    const { rows } = await pool.query(
      "SELECT count(*)::int AS n FROM practices.crm_accounts WHERE crm_id LIKE 'bulk-k-%'",
    );
    expect(rows[0].n).toBe(1000);
  });

  it("refuses more than 1,000 records with 422 naming accounts, storing none", async () => {
    const res = await bulk(
      Array.from({ length: 1001 }, (_, i) => ({ crm_id: `bulk-over-${i}`, ...account() })),
    );
    expect(res.status).toBe(422);
    expect(res.body.error?.details).toEqual([expect.objectContaining({ field: "accounts" })]);
    expect(await stored("bulk-over-0")).toBeUndefined();
  });

  it("refuses an empty list and a body over the size limit", async () => {
    expect((await bulk([])).status).toBe(422);
    const huge = await send("POST", "/v1/crm-mirror/accounts:bulk", {
      body: `{"accounts":["${"x".repeat(5 * 1024 * 1024)}"]}`,
    });
    expect(huge.status).toBe(413);
    expect(huge.body.error?.code).toBe("PAYLOAD_TOO_LARGE");
  });
});

describe("validation", () => {
  it("names every bad, missing and unknown field at once", async () => {
    const body: Record<string, unknown> = account({
      name: "x".repeat(256),
      modified_on: "2025-06-01 10:00",
      foo: 1,
      address: {
        street: null,
        postal_code: null,
        city: 3,
        province: null,
        country: null,
        extra: "",
      },
    });
    delete body.contact;
    const res = await put("acc-bad", body);
    expect(res.status).toBe(422);
    expect(res.body.error?.code).toBe("VALIDATION_ERROR");
    expect(res.body.error?.details?.map((d) => d.field).sort()).toEqual([
      "address.city",
      "address.extra",
      "contact",
      "foo",
      "modified_on",
      "name",
    ]);
    expect(await stored("acc-bad")).toBeUndefined();
  });

  it("refuses a crm_id in the body that differs from the path, a bad path id and a future version", async () => {
    const field = async (res: Promise<JsonResponse<Envelope<Result>>>) =>
      (await res).body.error?.details?.map((d) => d.field);
    expect(await field(put("acc-a", { crm_id: "acc-b", ...account() }))).toEqual(["crm_id"]);
    expect(await field(put(" padded", account()))).toEqual(["crm_id"]);
    expect(await field(put("x".repeat(65), account()))).toEqual(["crm_id"]);
    const tomorrow = new Date(NOW + 2 * 3_600_000).toISOString();
    expect(await field(put("acc-future", account({ modified_on: tomorrow })))).toEqual([
      "modified_on",
    ]);
  });

  const fields = async (res: Promise<JsonResponse<Envelope<unknown>>>) =>
    (await res).body.error?.details?.map((d) => d.field);

  it("refuses text PostgreSQL cannot store (NUL, an unpaired surrogate) with 422 naming the field", async () => {
    expect(await fields(put("acc-nul", account({ name: "Praktijk\u0000Vermeulen" })))).toEqual([
      "name",
    ]);
    const city = { ...account().address, city: "Gent\ud800" };
    expect(await fields(put("acc-lone", account({ address: city })))).toEqual(["address.city"]);
    const bad = { ...account({ identifiers: { vat: "\udc00BE0412" } }), crm_id: "acc-bulk-b" };
    expect(await fields(bulk([{ ...account(), crm_id: "acc-bulk-a" }, bad]))).toEqual([
      "accounts[1].identifiers.vat",
    ]);
    for (const id of ["acc-nul", "acc-lone", "acc-bulk-a"])
      expect(await stored(id)).toBeUndefined();
  });

  it("stores every other character exactly: C0 and C1 controls, non-characters, astral, format", async () => {
    const name = "Tab\tNEL\u0085\ufdd0\uffff\u{10ffff}\u200b😀\u202e";
    expect((await put("acc-chars", account({ name }))).status).toBe(201);
    expect((await stored("acc-chars"))?.name).toBe(name);
  });

  it("refuses dates PostgreSQL cannot store (year 0000) and days that do not exist, naming the field", async () => {
    for (const date of ["0000-01-01", "0000-02-29", "2023-02-29", "1900-02-29", "2025-04-31"]) {
      const period = { start_date: date, stop_date: null };
      expect(await fields(put("acc-date", account({ period }))), date).toEqual([
        "period.start_date",
      ]);
    }
    const period = { start_date: "0001-01-01", stop_date: "2024-02-29" };
    expect(
      await fields(
        bulk([
          { ...account({ period: { ...period, stop_date: "0000-12-31" } }), crm_id: "acc-date" },
        ]),
      ),
    ).toEqual(["accounts[0].period.stop_date"]);
    expect(await stored("acc-date")).toBeUndefined();
    expect((await put("acc-date", account({ period }))).status).toBe(201);
    expect(await stored("acc-date")).toMatchObject({
      period_start: "0001-01-01",
      period_stop: "2024-02-29",
    });
  });

  it("reads a modified_on in the years 0000 to 0099 as those years, not 1900 to 1999", async () => {
    expect(await fields(put("acc-0099", account({ modified_on: "0099-06-29T00:13:49Z" })))).toEqual(
      ["modified_on"],
    );
    const res = await del("acc-0099", "0099-12-31T23:59:59-23:59");
    expect(res.body.error?.details?.map((d) => d.field)).toEqual(["CRM-Modified-On"]);
    expect(await stored("acc-0099")).toBeUndefined();
  });

  it("refuses a crm_id holding a control character the document forbids (C0, DEL and C1), never storing another id", async () => {
    expect(await fields(put("acc\u0085nel", account()))).toEqual(["crm_id"]);
    expect(await fields(put("acc\u009f", account()))).toEqual(["crm_id"]);
    expect(await fields(del("acc\u0080x", "2025-06-01T10:00:00Z"))).toEqual(["crm_id"]);
    expect(await fields(bulk([{ ...account(), crm_id: "acc\u0090\u007f" }]))).toEqual([
      "accounts[0].crm_id",
    ]);
    const { rows } = await pool.query<{ crm_id: string }>(
      "SELECT crm_id FROM practices.crm_accounts WHERE crm_id LIKE 'acc%' AND crm_id ~ '[\\x80-\\x9f]|nel$|^acc$|^accx$'",
    );
    expect(rows).toEqual([]);
  });

  it("answers 415 for a body that is not JSON and 400 for broken JSON", async () => {
    expect(
      (
        await send("PUT", "/v1/crm-mirror/accounts/acc-415", {
          body: "name=x",
          headers: { "content-type": "application/x-www-form-urlencoded" },
        })
      ).status,
    ).toBe(415);
    const broken = await send("PUT", "/v1/crm-mirror/accounts/acc-400", { body: "{" });
    expect(broken.status).toBe(400);
    expect(broken.body.error?.code).toBe("MALFORMED_REQUEST");
  });
});

type Mirrored = ReturnType<typeof account> & { crm_id: string; deleted: boolean };
type Page = JsonResponse<Envelope<Mirrored[]>> & {
  body: { meta: { pagination: { next_cursor: string; has_more: boolean; total: number } } };
};
const readBack = (id: string, auth?: string) =>
  send<Mirrored>("GET", `/v1/crm-mirror/accounts/${encodeURIComponent(id)}`, { auth });
const listPage = async (query: string, auth?: string) =>
  (await send<Mirrored[]>("GET", `/v1/crm-mirror/accounts?${query}`, { auth })) as Page;

describe("reading the mirror back (its writer only)", () => {
  it("reads one account as stored, its version to the microsecond", async () => {
    await put("acc-read", account({ modified_on: "2025-05-01T12:00:00.123456+02:00" }));
    const res = await readBack("acc-read");
    expect(res.status).toBe(200);
    const { modified_on: _written, ...fields } = account();
    expect(res.body.data).toEqual({
      crm_id: "acc-read",
      ...fields,
      modified_on: "2025-05-01T10:00:00.123456Z",
      deleted: false,
    });
  });

  it("reads a tombstone as deleted with every field null, and an unknown id as 404", async () => {
    await put("acc-read-deleted", account());
    await del("acc-read-deleted", "2025-06-02T00:00:00Z");
    const res = await readBack("acc-read-deleted");
    expect(res.status).toBe(200);
    expect(res.body.data?.deleted).toBe(true);
    expect(res.body.data?.name).toBeNull();
    expect(res.body.data?.address.city).toBeNull();
    expect(res.body.data?.modified_on).toBe("2025-06-02T00:00:00.000000Z");
    expect((await readBack("acc-never-written")).status).toBe(404);
    const bad = await readBack(" acc-read");
    expect(bad.status).toBe(422);
    expect(bad.body.error?.details?.[0]?.field).toBe("crm_id");
  });

  it("lists every account once, in (modified_on, crm_id) order, walked by the cursor", async () => {
    // Two accounts with the same version: the id breaks the tie.
    await put("acc-list-b", account({ modified_on: "2020-01-01T00:00:00Z" }));
    await put("acc-list-a", account({ modified_on: "2020-01-01T00:00:00Z" }));
    const { rows } = await pool.query<{ crm_id: string }>(
      "SELECT crm_id FROM practices.crm_accounts ORDER BY modified_on, crm_id",
    );
    const seen: string[] = [];
    let page = await listPage("per_page=3");
    for (let i = 0; i < 1_000; i += 1) {
      expect(page.status).toBe(200);
      seen.push(...(page.body.data ?? []).map((a) => a.crm_id));
      expect(page.body.meta.pagination.total).toBe(rows.length);
      if (!page.body.meta.pagination.has_more) break;
      page = await listPage(`per_page=3&cursor=${page.body.meta.pagination.next_cursor}`);
    }
    expect(seen).toEqual(rows.map((r) => r.crm_id));
    expect(seen.indexOf("acc-list-a")).toBe(seen.indexOf("acc-list-b") - 1);
    expect(seen).toContain("acc-read-deleted");
    // Caught up: the last cursor answers an empty page until a newer write arrives.
    const last = page.body.meta.pagination.next_cursor;
    expect((await listPage(`cursor=${last}`)).body.data).toEqual([]);
    await put(
      "acc-list-newest",
      account({ modified_on: new Date(NOW + 59 * 60_000).toISOString() }),
    );
    expect((await listPage(`cursor=${last}`)).body.data?.map((a) => a.crm_id)).toEqual([
      "acc-list-newest",
    ]);
  });

  it("answers 422 naming the cursor for one it did not make", async () => {
    for (const cursor of [
      "nope",
      Buffer.from('{"v":1,"m":"x","i":"a","n":1}').toString("base64url"),
    ]) {
      const res = await listPage(`cursor=${cursor}`);
      expect(res.status).toBe(422);
      expect(res.body.error?.details?.[0]?.field).toBe("cursor");
    }
  });

  it("stays invisible to every other client: 403 without crm-mirror:write", async () => {
    const other = await svc.issuer.mint({
      scope: "practices:read vacancies:read webhooks:read",
      clientId: "another-client",
    });
    for (const res of [await readBack("acc-read", other), await listPage("per_page=1", other)]) {
      expect(res.status).toBe(403);
      expect(res.body.error?.code).toBe("INSUFFICIENT_SCOPE");
      expect(JSON.stringify(res.body)).not.toContain("Vermeulen");
    }
  });

  it("does not exist in the sandbox", async () => {
    const sandbox = await startPractices({
      legacyUrl: loadConfig({}).LEGACY_DATABASE_URL,
      crmMirror: new PgCrmMirrorStore(pool, { now: () => NOW }),
      issuer: svc.issuer,
    });
    try {
      for (const path of ["/v1/crm-mirror/accounts", "/v1/crm-mirror/accounts/acc-read"]) {
        const res = await fetchJson<Envelope>(`${sandbox.app.baseUrl}${path}`, {
          headers: { authorization: `Bearer ${token}` },
        });
        expect(res.status).toBe(404);
      }
    } finally {
      await sandbox.close();
    }
  });
});

describe("access and failures", () => {
  it("answers 401 without a token and 403 naming crm-mirror:write for a client without the scope", async () => {
    expect(
      (await send("PUT", "/v1/crm-mirror/accounts/acc-auth", { body: account(), auth: null }))
        .status,
    ).toBe(401);
    const reader = await svc.issuer.mint({ scope: "practices:read" });
    for (const res of [
      await send("PUT", "/v1/crm-mirror/accounts/acc-auth", { body: account(), auth: reader }),
      await send("DELETE", "/v1/crm-mirror/accounts/acc-auth", {
        headers: { "CRM-Modified-On": "2025-06-01T00:00:00Z" },
        auth: reader,
      }),
      await send("POST", "/v1/crm-mirror/accounts:bulk", { body: { accounts: [] }, auth: reader }),
    ]) {
      expect(res.status).toBe(403);
      expect(res.body.error?.code).toBe("INSUFFICIENT_SCOPE");
      expect(res.body.error?.message).toContain("crm-mirror:write");
    }
    expect(await stored("acc-auth")).toBeUndefined();
  });

  it("logs a database error without the record's values", async () => {
    const lines: string[] = [];
    const logger = createLogger({
      service: "practices",
      level: "info",
      destination: { write: (line: string) => void lines.push(line) },
    });
    const logged = await startPractices({
      legacyUrl: loadConfig({}).LEGACY_DATABASE_URL,
      env: { ENVIRONMENT: "production" },
      crmMirror: new PgCrmMirrorStore(pool, { now: () => NOW }),
      issuer: svc.issuer,
      logger,
    });
    // A rule the database enforces and the service does not know: its error is unexpected (500).
    await pool.query(
      "ALTER TABLE practices.crm_accounts ADD CONSTRAINT no_forbidden CHECK (name <> 'Verboden Praktijk')",
    );
    try {
      const contact = { email: "geheim.adres@example-praktijk.be", phone: "0470 99 88 77" };
      const res = await fetchJson(`${logged.app.baseUrl}/v1/crm-mirror/accounts/acc-log-value`, {
        method: "PUT",
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
        body: JSON.stringify(account({ name: "Verboden Praktijk", contact })),
      });
      expect(res.status).toBe(500);
      const text = lines.join("");
      // What went wrong stays: the statement's text and the constraint the row broke.
      expect(text).toContain('violates check constraint \\"no_forbidden\\"');
      for (const value of ["Verboden", "geheim.adres", "0470 99 88 77", "Kortrijksesteenweg"])
        expect(text, value).not.toContain(value);
    } finally {
      await pool.query("ALTER TABLE practices.crm_accounts DROP CONSTRAINT no_forbidden");
      await logged.close();
    }
  });

  it("answers 405 with Allow for a method an account or the list does not have", async () => {
    const res = await send("POST", "/v1/crm-mirror/accounts/acc-create", { body: account() });
    expect(res.status).toBe(405);
    expect(res.headers.get("allow")).toBe("GET, HEAD, PUT, DELETE");
    const list = await send("DELETE", "/v1/crm-mirror/accounts");
    expect(list.status).toBe(405);
    expect(list.headers.get("allow")).toBe("GET, HEAD");
  });

  it("answers 503 SERVICE_UNAVAILABLE quickly when its PostgreSQL cannot be reached", async () => {
    const url = new URL(database.url);
    url.port = String(await unusedPort());
    const downPool = createPgPool({
      url: url.toString(),
      schema: "practices",
      applicationName: "test",
      connectTimeoutMs: 1_000,
    });
    const down = await startPractices({
      legacyUrl: loadConfig({}).LEGACY_DATABASE_URL,
      env: { ENVIRONMENT: "production" },
      crmMirror: new PgCrmMirrorStore(downPool, { now: () => NOW }),
      issuer: svc.issuer,
    });
    try {
      const started = Date.now();
      const res = await fetchJson<Envelope>(`${down.app.baseUrl}/v1/crm-mirror/accounts/acc-down`, {
        method: "PUT",
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
        body: JSON.stringify(account()),
      });
      expect(res.status).toBe(503);
      expect(res.body.error?.code).toBe("SERVICE_UNAVAILABLE");
      expect(Date.now() - started).toBeLessThan(3_000);
    } finally {
      await down.close();
      await downPool.end();
    }
  });
});
