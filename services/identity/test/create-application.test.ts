import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mergeCandidates } from "../src/domain/merge-candidates.ts";
import {
  applicationBody,
  countRows,
  person,
  startHarness,
  type Harness,
} from "./support/harness.ts";

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());

const apply = (
  vacancy: string,
  candidate: { email?: string | null; phone?: string | null },
  extra: Record<string, unknown> = {},
) => h.post("/v1/applications", applicationBody(vacancy, candidate, extra));

const CREATE_FIELDS = [
  "application_created",
  "application_uuid",
  "candidate_created",
  "candidate_uuid",
  "consent_flag",
  "created_at",
  "entrypoint_code",
  "entrypoint_raw",
  "practice_id",
  "resolution",
  "vacancy_uuid",
];

describe("POST /v1/applications: identity resolution", () => {
  it("creates a candidate and an application for identifiers never seen before (201)", async () => {
    const vacancy = h.newVacancy("practice-42");
    const res = await apply(vacancy, person(), { entrypoint: "Vacature-pagina" });
    expect(res.status).toBe(201);
    expect(Object.keys(res.body.data).sort()).toEqual(CREATE_FIELDS);
    expect(res.body.data).toMatchObject({
      vacancy_uuid: vacancy,
      practice_id: "practice-42",
      resolution: "resolved",
      consent_flag: true,
      entrypoint_raw: "Vacature-pagina",
      entrypoint_code: "vacancy_page",
      candidate_created: true,
      application_created: true,
    });
    expect(res.body.data.created_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}\+00:00$/);
    expect(h.vacancies.asked).toContain(vacancy);
  });

  it("finds the existing candidate by e-mail address for another vacancy", async () => {
    const p = person();
    const first = await apply(h.newVacancy(), p);
    const second = await apply(h.newVacancy(), { email: p.email });
    expect(second.status).toBe(201);
    expect(second.body.data).toMatchObject({
      candidate_uuid: first.body.data.candidate_uuid,
      candidate_created: false,
      application_created: true,
      resolution: "resolved",
    });
  });

  it("finds the existing candidate by phone number alone", async () => {
    const p = person();
    const first = await apply(h.newVacancy(), p);
    const second = await apply(h.newVacancy(), { phone: p.phone });
    expect(second.body.data).toMatchObject({
      candidate_uuid: first.body.data.candidate_uuid,
      candidate_created: false,
      resolution: "resolved",
    });
  });

  it("treats case, surrounding spaces, Unicode forms and the ways of writing a Belgian number as one identity", async () => {
    const first = await apply(h.newVacancy(), {
      email: "Élise.Dupont@Voorbeeld.be",
      phone: "+32 470 12 34 56",
    });
    const variants = [
      { email: "  élise.dupont@voorbeeld.BE " },
      { email: "E\u0301lise.dupont@voorbeeld.be" },
      { phone: "0470 12 34 56" },
      { phone: "0470/12.34.56" },
      { phone: "0032470123456" },
      { phone: "+32 (0)470 123 456" },
    ];
    for (const candidate of variants) {
      const res = await apply(h.newVacancy(), candidate);
      expect(res.body.data, JSON.stringify(candidate)).toMatchObject({
        candidate_uuid: first.body.data.candidate_uuid,
        resolution: "resolved",
        candidate_created: false,
      });
    }
  });

  it("links a new phone number to the candidate found by e-mail, so the number alone finds them later", async () => {
    const p = person();
    const first = await apply(h.newVacancy(), { email: p.email });
    await apply(h.newVacancy(), { email: p.email, phone: p.phone });
    const byPhone = await apply(h.newVacancy(), { phone: p.phone });
    expect(byPhone.body.data.candidate_uuid).toBe(first.body.data.candidate_uuid);
  });

  it("answers 200 with the existing application when the same candidate applies to the same vacancy again", async () => {
    const p = person();
    const vacancy = h.newVacancy();
    const first = await apply(vacancy, p, { entrypoint: "indeed" });
    const again = await apply(
      vacancy,
      { phone: p.phone },
      { consent: false, entrypoint: "linkedin" },
    );
    expect(again.status).toBe(200);
    const { candidate_created: _c, application_created: _a, ...firstFields } = first.body.data;
    expect(again.body.data).toEqual({
      ...firstFields,
      candidate_created: false,
      application_created: false,
    });
  });

  it("records one candidate and one application when the same new person applies many times at once", async () => {
    const p = person();
    const vacancy = h.newVacancy();
    const before = await countRows(h.pool, "candidates");
    const answers = await Promise.all(
      Array.from({ length: 10 }, (_, i) => apply(vacancy, i % 2 ? { email: p.email } : p)),
    );
    expect(answers.map((a) => a.status).sort()).toEqual([
      200, 200, 200, 200, 200, 200, 200, 200, 200, 201,
    ]);
    expect(new Set(answers.map((a) => a.body.data.application_uuid)).size).toBe(1);
    expect(await countRows(h.pool, "candidates")).toBe(before + 1);
  });

  it("is ambiguous when the e-mail belongs to one candidate and the phone to another, goes to the e-mail's candidate and links nothing", async () => {
    const a = person();
    const b = person();
    const first = await apply(h.newVacancy(), a);
    const second = await apply(h.newVacancy(), b);
    const mixed = await apply(h.newVacancy(), { email: a.email, phone: b.phone });
    expect(mixed.status).toBe(201);
    expect(mixed.body.data).toMatchObject({
      resolution: "ambiguous",
      candidate_uuid: first.body.data.candidate_uuid,
      candidate_created: false,
    });
    const byPhone = await apply(h.newVacancy(), { phone: b.phone });
    expect(byPhone.body.data).toMatchObject({
      resolution: "resolved",
      candidate_uuid: second.body.data.candidate_uuid,
    });
  });

  it("lands on the end of a merge chain: A merged into B, B into C resolves A's identifiers to C", async () => {
    const [a, b, c] = [person(), person(), person()];
    const [ra, rb, rc] = [
      await apply(h.newVacancy(), a),
      await apply(h.newVacancy(), b),
      await apply(h.newVacancy(), c),
    ];
    const uuid = (r: typeof ra) => String(r.body.data.candidate_uuid);
    const deps = { store: h.store, now: () => new Date() };
    await mergeCandidates(deps, uuid(ra), uuid(rb));
    await mergeCandidates(deps, uuid(rb), uuid(rc));
    const later = await apply(h.newVacancy(), { email: a.email });
    expect(later.body.data).toMatchObject({
      candidate_uuid: uuid(rc),
      resolution: "resolved",
      candidate_created: false,
    });
    // A's e-mail and C's phone now mean the same person: not ambiguous.
    const both = await apply(h.newVacancy(), { email: a.email, phone: c.phone });
    expect(both.body.data).toMatchObject({ candidate_uuid: uuid(rc), resolution: "resolved" });
  });

  it("answers 200 with the merged candidate's application when its survivor applies to the same vacancy", async () => {
    const [a, b] = [person(), person()];
    const vacancy = h.newVacancy();
    const ra = await apply(vacancy, a);
    const rb = await apply(h.newVacancy(), b);
    await mergeCandidates(
      { store: h.store, now: () => new Date() },
      String(ra.body.data.candidate_uuid),
      String(rb.body.data.candidate_uuid),
    );
    const again = await apply(vacancy, b);
    expect(again.status).toBe(200);
    expect(again.body.data).toMatchObject({
      application_uuid: ra.body.data.application_uuid,
      application_created: false,
    });
  });

  it("is unresolved, with a new candidate nobody can be matched to, when no identifier is usable", async () => {
    const body = { email: "not an address", phone: "n/a" };
    const first = await apply(h.newVacancy(), body);
    const second = await apply(h.newVacancy(), body);
    expect(first.status).toBe(201);
    expect(first.body.data).toMatchObject({ resolution: "unresolved", candidate_created: true });
    expect(typeof first.body.data.candidate_uuid).toBe("string");
    expect(second.body.data.candidate_uuid).not.toBe(first.body.data.candidate_uuid);
  });

  it("resolves by the usable identifier when the other one does not normalise", async () => {
    const p = person();
    const first = await apply(h.newVacancy(), p);
    const res = await apply(h.newVacancy(), { email: p.email, phone: "12" });
    expect(res.body.data).toMatchObject({
      resolution: "resolved",
      candidate_uuid: first.body.data.candidate_uuid,
    });
  });
});

describe("POST /v1/applications: vacancy and practice", () => {
  it("keeps a practice_id the form sends over the vacancy's own", async () => {
    const res = await apply(h.newVacancy("practice-of-vacancy"), person(), {
      practice_id: "practice-from-form",
    });
    expect(res.body.data.practice_id).toBe("practice-from-form");
  });

  it("answers 422 naming practice_id when neither the form nor the vacancy names a practice", async () => {
    const res = await apply(h.newVacancy(null), person());
    expect(res.status).toBe(422);
    expect(res.body.error.details).toEqual([{ field: "practice_id", message: expect.any(String) }]);
  });

  it("answers 422 naming vacancy_uuid for a vacancy the vacancies service does not know, and stores nothing", async () => {
    const before = await countRows(h.pool, "candidates");
    const res = await apply("5b0c8f57-0c55-4a0e-9a59-3f2b1d8f0e11", person());
    expect(res.status).toBe(422);
    expect(res.body.error).toMatchObject({
      code: "VALIDATION_ERROR",
      details: [{ field: "vacancy_uuid", message: expect.any(String) }],
    });
    expect(await countRows(h.pool, "candidates")).toBe(before);
  });

  it("keeps the raw entrypoint as received and maps known ones to a code, unknown ones to null", async () => {
    const cases: Array<[string | null, string | null]> = [
      ["https://be.indeed.com/viewjob?jk=1", "indeed"],
      ["  LinkedIn ", "linkedin"],
      ["Candidature spontanée", "spontaneous"],
      ["something-new", null],
      [null, null],
    ];
    for (const [raw, code] of cases) {
      const res = await apply(h.newVacancy(), person(), { entrypoint: raw });
      expect(res.body.data, String(raw)).toMatchObject({
        entrypoint_raw: raw,
        entrypoint_code: code,
      });
    }
  });
});

describe("POST /v1/applications: database round trips", () => {
  /** The statements the service sends to PostgreSQL while `work` runs (nothing else queries). */
  async function statementsDuring(work: () => Promise<unknown>): Promise<string[]> {
    const sent: string[] = [];
    const query = pg.Client.prototype.query;
    pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
      const [first] = args as [string | { text: string }];
      sent.push(typeof first === "string" ? first : first.text);
      return (query as (...a: unknown[]) => unknown).apply(this, args);
    } as typeof query;
    try {
      await work();
    } finally {
      pg.Client.prototype.query = query;
    }
    return sent;
  }

  it("records a new person's application in one statement, its own transaction", async () => {
    const vacancy = h.newVacancy();
    let status = 0;
    const sent = await statementsDuring(async () => {
      status = (await apply(vacancy, person())).status;
    });
    expect(status).toBe(201);
    expect(sent).toEqual([expect.stringContaining("identity.record_application(")]);
  });

  it("adds the Idempotency-Key's reservation (its own transaction) and the stored response", async () => {
    const vacancy = h.newVacancy();
    let status = 0;
    const sent = await statementsDuring(async () => {
      const res = await h.post("/v1/applications", applicationBody(vacancy, person()), {
        headers: { "Idempotency-Key": crypto.randomUUID() },
      });
      status = res.status;
    });
    expect(status).toBe(201);
    expect(sent.map((q) => q.split(/\s/)[0]?.toUpperCase())).toEqual([
      "BEGIN",
      "INSERT",
      "COMMIT",
      "SELECT",
      "UPDATE",
    ]);
  });
});
