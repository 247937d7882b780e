import { createHmac } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createLogger } from "@svc/logging";
import { mergeCandidates } from "../src/domain/merge-candidates.ts";
import { normaliseEmail } from "../src/domain/identifiers/normalise-email.ts";
import { normalisePhone } from "../src/domain/identifiers/normalise-phone.ts";
import { applicationBody, startHarness, TEST_PEPPER, type Harness } from "./support/harness.ts";

// What application forms send: well-formed, oddly written and unusable identifiers, and a name
// typed into the wrong field. None of it may be stored, answered or logged.
const PEOPLE = [
  { email: "Marie.Claes+jobs@Tandarts-Voorbeeld.be", phone: "+32 478 91 23 45" },
  { email: "  pieter.janssens@example.org ", phone: "0485/66.77.88" },
  { email: "sofie.peeters@example.net", phone: "0032 2 512 34 56" },
  { email: "Jan Van den Broeck (geen mail)", phone: "bel me na 18u" },
  { email: "lotte.maes@example.com", phone: "+31 6 12345678" },
];
const CONTROL = "control-marker-7f3a";

let h: Harness;
const logLines: string[] = [];
const responses: string[] = [];

function needlesOf(p: { email: string; phone: string }): string[] {
  const found = [
    p.email,
    p.email.trim(),
    p.phone,
    p.phone.replace(/\D/g, ""),
    p.email.split("@")[0] as string,
  ];
  const email = normaliseEmail(p.email);
  const phone = normalisePhone(p.phone);
  if (email) found.push(email);
  if (phone) found.push(phone, phone.slice(1));
  return found.map((n) => n.trim()).filter((n) => n.length >= 6);
}

function lookupHashes(p: { email: string; phone: string }): string[] {
  const hmac = (input: string) => createHmac("sha256", TEST_PEPPER).update(input).digest();
  const keys = [
    normaliseEmail(p.email) && `email:${normaliseEmail(p.email)}`,
    normalisePhone(p.phone) && `phone:${normalisePhone(p.phone)}`,
  ].filter(Boolean) as string[];
  return keys.flatMap((k) => [
    hmac(k).toString("hex"),
    hmac(k).toString("base64"),
    hmac(k).toString("base64url"),
  ]);
}

async function record(promise: Promise<{ text: string }>) {
  responses.push((await promise).text);
}

beforeAll(async () => {
  const logger = createLogger({
    service: "identity",
    level: "trace",
    destination: { write: (line: string) => void logLines.push(line) },
  });
  h = await startHarness({ environment: "production", logger });
  const vacancy = h.newVacancy("practice-pd");
  for (const [i, p] of PEOPLE.entries()) {
    const body = applicationBody(i % 2 ? vacancy : h.newVacancy(), p, {
      entrypoint: i === 0 ? CONTROL : "website",
    });
    await record(h.post("/v1/applications", body, { headers: { "Idempotency-Key": `pd-${i}` } }));
    await record(h.post("/v1/applications", body, { headers: { "Idempotency-Key": `pd-${i}` } }));
    await record(h.post("/v1/applications", { ...body, candidate: { ...p, nickname: "x" } }));
  }
  const [a, b] = PEOPLE as [(typeof PEOPLE)[0], (typeof PEOPLE)[0]];
  await record(
    h.post("/v1/applications", applicationBody(vacancy, { email: a.email, phone: b.phone })),
  );
  await record(h.post("/v1/applications", applicationBody(crypto.randomUUID(), a)));
  const candidates = (await h.get("/v1/candidates")).body.data;
  await mergeCandidates(
    { store: h.store, now: () => new Date() },
    String(candidates[1]?.candidate_uuid),
    String(candidates[0]?.candidate_uuid),
  );
  for (const path of ["/v1/candidates", "/v1/applications", "/v1/recruitment-cases"]) {
    const list = await h.get(`${path}?per_page=100`);
    responses.push(list.text);
    for (const item of list.body.data) {
      const id = Object.values(item)[0];
      await record(h.get(`${path}/${String(id)}`));
    }
  }
  const application = JSON.parse(responses[0] as string).data.application_uuid as string;
  await record(h.post(`/v1/applications/${application}/submission`, undefined));
});
afterAll(() => h.close());

/** Every text-like column of every table of the identity schema, as the database describes them. */
async function textColumns(): Promise<Array<{ table: string; column: string; type: string }>> {
  const result = await h.pool.query<{ table_name: string; column_name: string; data_type: string }>(
    `SELECT table_name, column_name, data_type FROM information_schema.columns
      WHERE table_schema = 'identity' AND data_type IN ('text', 'character varying', 'character', 'json', 'jsonb', 'bytea')
      ORDER BY table_name, column_name`,
  );
  return result.rows.map((r) => ({
    table: r.table_name,
    column: r.column_name,
    type: r.data_type,
  }));
}

async function columnsContaining(needle: string): Promise<string[]> {
  const hits: string[] = [];
  for (const { table, column, type } of await textColumns()) {
    const value = type === "bytea" ? `encode("${column}", 'escape')` : `"${column}"::text`;
    const result = await h.pool.query(
      `SELECT 1 FROM identity."${table}" WHERE strpos(lower(${value}), lower($1)) > 0 LIMIT 1`,
      [needle],
    );
    if (result.rowCount) hits.push(`${table}.${column}`);
  }
  return hits;
}

describe("no personal data, anywhere", () => {
  it("scans every text, json and bytea column of the identity schema, and the scan finds what is there", async () => {
    const columns = (await textColumns()).map((c) => `${c.table}.${c.column}`);
    for (const expected of [
      "applications.entrypoint_raw",
      "outbox.payload",
      "idempotency_keys.response_body",
      "candidate_identifiers.lookup_hash",
    ]) {
      expect(columns).toContain(expected);
    }
    // The control value went in as an entrypoint: the application and the stored response hold it.
    expect(await columnsContaining(CONTROL)).toEqual([
      "applications.entrypoint_raw",
      "idempotency_keys.response_body",
    ]);
  });

  it.each(PEOPLE.map((p) => [p.email, p]))(
    "stores nothing of %s in any column",
    async (_label, p) => {
      for (const needle of needlesOf(p))
        expect(await columnsContaining(needle), needle).toEqual([]);
    },
  );

  it("answers nothing of it: no identifier, normalised form or lookup hash in any response", () => {
    expect(responses.length).toBeGreaterThan(30);
    const all = responses.join("\n").toLowerCase();
    for (const p of PEOPLE) {
      for (const needle of [...needlesOf(p), ...lookupHashes(p)])
        expect(all.includes(needle.toLowerCase()), needle).toBe(false);
    }
  });

  it("logs nothing of it", () => {
    expect(logLines.length).toBeGreaterThan(30);
    const all = logLines.join("\n").toLowerCase();
    for (const p of PEOPLE) {
      for (const needle of [...needlesOf(p), ...lookupHashes(p)])
        expect(all.includes(needle.toLowerCase()), needle).toBe(false);
    }
  });
});
