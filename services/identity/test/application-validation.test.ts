import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fetchJson } from "@svc/testing";
import {
  applicationBody,
  countRows,
  person,
  startHarness,
  type Body,
  type Harness,
} from "./support/harness.ts";

let h: Harness;
let vacancy: string;
beforeAll(async () => {
  h = await startHarness();
  vacancy = h.newVacancy();
});
afterAll(() => h.close());

async function fieldsOf(body: unknown): Promise<string[]> {
  const res = await h.post("/v1/applications", body);
  expect(res.status, res.text).toBe(422);
  expect(res.body.error.code).toBe("VALIDATION_ERROR");
  return (res.body.error.details ?? []).map((d) => d.field).sort();
}

describe("POST /v1/applications: request body validation", () => {
  it("names every unknown field, at the top level and inside candidate", async () => {
    const body = {
      ...applicationBody(vacancy, { email: "a@b.be", first_name: "Jan" }),
      name: "Jan",
      source: "web",
    };
    expect(await fieldsOf(body)).toEqual(["candidate.first_name", "name", "source"]);
  });

  it("names missing required fields", async () => {
    expect(await fieldsOf({})).toEqual(["candidate", "consent", "vacancy_uuid"]);
  });

  it("names fields of the wrong type", async () => {
    const body = {
      vacancy_uuid: 12,
      practice_id: 5,
      candidate: { email: ["a@b.be"], phone: 470123456 },
      consent: "yes",
      entrypoint: {},
    };
    expect(await fieldsOf(body)).toEqual([
      "candidate.email",
      "candidate.phone",
      "consent",
      "entrypoint",
      "practice_id",
      "vacancy_uuid",
    ]);
  });

  it("requires an e-mail address or a phone number", async () => {
    expect(await fieldsOf(applicationBody(vacancy, {}))).toEqual(["candidate"]);
    expect(await fieldsOf(applicationBody(vacancy, { email: null, phone: null }))).toEqual([
      "candidate",
    ]);
  });

  it("refuses blank identifiers instead of guessing they mean 'none'", async () => {
    expect(
      await fieldsOf(applicationBody(vacancy, { email: "   ", phone: "+32470000000" })),
    ).toEqual(["candidate.email"]);
  });

  it("refuses a vacancy_uuid that is not a UUID, without asking the vacancies service", async () => {
    const asked = h.vacancies.asked.length;
    expect(await fieldsOf(applicationBody("vacancy-1", person()))).toEqual(["vacancy_uuid"]);
    expect(h.vacancies.asked.length).toBe(asked);
  });

  it("refuses identifiers and values beyond their maximum length", async () => {
    const body = applicationBody(
      vacancy,
      { email: `${"a".repeat(320)}@b.be` },
      { entrypoint: "x".repeat(201), practice_id: "p".repeat(101) },
    );
    expect(await fieldsOf(body)).toEqual(["candidate.email", "entrypoint", "practice_id"]);
  });

  it("refuses an entrypoint that carries an e-mail address or the candidate's phone number", async () => {
    expect(
      await fieldsOf(applicationBody(vacancy, person(), { entrypoint: "mail from jan@x.be" })),
    ).toEqual(["entrypoint"]);
    expect(
      await fieldsOf(
        applicationBody(vacancy, { phone: "0470 12 34 56" }, { entrypoint: "callback-0470123456" }),
      ),
    ).toEqual(["entrypoint"]);
  });

  it("refuses text the database cannot store exactly (NUL, an unpaired surrogate), naming the field", async () => {
    const body = (extra: Record<string, unknown>, candidate: Record<string, unknown> = {}) =>
      applicationBody(vacancy, { ...person(), ...candidate }, extra);
    expect(await fieldsOf(body({ entrypoint: "web\ud800site" }))).toEqual(["entrypoint"]);
    expect(await fieldsOf(body({ entrypoint: "website\u0000" }))).toEqual(["entrypoint"]);
    expect(await fieldsOf(body({ practice_id: "P\udc00" }))).toEqual(["practice_id"]);
    expect(await fieldsOf(body({}, { email: "a\u0000@b.be" }))).toEqual(["candidate.email"]);
  });

  it("refuses a practice_id holding a control character, as every practice id", async () => {
    expect(await fieldsOf(applicationBody(vacancy, person(), { practice_id: "P\u0085" }))).toEqual([
      "practice_id",
    ]);
  });

  it("answers 422 for a body that is not an object", async () => {
    expect(await fieldsOf([1, 2])).toEqual(["body"]);
  });

  it("answers 400 for a body that is not JSON and 415 for another media type", async () => {
    const token = await h.token();
    const broken = await fetchJson<Body>(`${h.baseUrl}/v1/applications`, {
      method: "POST",
      headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json" },
      body: "{",
    });
    expect(broken.status).toBe(400);
    expect(broken.body.error.code).toBe("MALFORMED_REQUEST");
    const form = await fetchJson<Body>(`${h.baseUrl}/v1/applications`, {
      method: "POST",
      headers: {
        Authorization: `Bearer ${token}`,
        "Content-Type": "application/x-www-form-urlencoded",
      },
      body: "a=b",
    });
    expect(form.status).toBe(415);
  });

  it("answers 413 for a body far larger than an application", async () => {
    const res = await h.post(
      "/v1/applications",
      applicationBody(vacancy, person(), { padding: "x".repeat(40_000) }),
    );
    expect(res.status).toBe(413);
  });

  it("stores nothing for a rejected request", async () => {
    expect(await countRows(h.pool, "candidates")).toBe(0);
    expect(await countRows(h.pool, "outbox")).toBe(0);
  });
});

describe("applications routes: methods and scopes", () => {
  it("answers 405 with Allow for a method the path does not support", async () => {
    const res = await fetchJson<Body>(`${h.baseUrl}/v1/applications`, {
      method: "DELETE",
      headers: { Authorization: `Bearer ${await h.token()}` },
    });
    expect(res.status).toBe(405);
    expect(res.headers.get("allow")).toBe("GET, POST");
  });

  it("answers 401 without a token and 403 naming applications:write with a read-only token", async () => {
    const anonymous = await fetchJson<Body>(`${h.baseUrl}/v1/applications`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: "{}",
    });
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get("www-authenticate")).toBe('Bearer realm="integration-service"');
    const readOnly = await h.post("/v1/applications", applicationBody(vacancy, person()), {
      scope: "applications:read candidates:read",
    });
    expect(readOnly.status).toBe(403);
    expect(readOnly.body.error.code).toBe("INSUFFICIENT_SCOPE");
    expect(readOnly.body.error.message).toContain("applications:write");
  });
});
