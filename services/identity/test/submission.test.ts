import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fetchJson } from "@svc/testing";
import {
  applicationBody,
  person,
  startHarness,
  type Body,
  type Harness,
} from "./support/harness.ts";

let production: Harness;
let sandbox: Harness;
beforeAll(async () => {
  [production, sandbox] = await Promise.all([
    startHarness({ environment: "production" }),
    startHarness({ environment: "sandbox" }),
  ]);
});
afterAll(() => Promise.all([production.close(), sandbox.close()]));

async function newApplication(h: Harness): Promise<string> {
  const res = await h.post("/v1/applications", applicationBody(h.newVacancy(), person()));
  return String(res.body.data.application_uuid);
}

async function submit(h: Harness, uuid: string, body?: unknown, scope?: string) {
  const headers: Record<string, string> = { Authorization: `Bearer ${await h.token(scope)}` };
  if (body !== undefined) headers["Content-Type"] = "application/json";
  return fetchJson<Body>(`${h.baseUrl}/v1/applications/${uuid}/submission`, {
    method: "POST",
    headers,
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
}

describe("POST /v1/applications/{uuid}/submission (production)", () => {
  it("records the submission once: 201 with the record, then 200 with the same record", async () => {
    const uuid = await newApplication(production);
    const first = await submit(production, uuid);
    expect(first.status).toBe(201);
    expect(first.body.data).toEqual({
      application_uuid: uuid,
      submitted_at: expect.stringMatching(/\+00:00$/),
    });
    const again = await submit(production, uuid, {});
    expect(again.status).toBe(200);
    expect(again.body.data).toEqual(first.body.data);
    const application = await production.get(`/v1/applications/${uuid}`);
    expect(application.body.data.updated_at).toBe(first.body.data.submitted_at);
  });

  it("answers concurrent submissions with one 201 and the same record everywhere", async () => {
    const uuid = await newApplication(production);
    const answers = await Promise.all(Array.from({ length: 6 }, () => submit(production, uuid)));
    expect(answers.map((a) => a.status).sort()).toEqual([200, 200, 200, 200, 200, 201]);
    expect(new Set(answers.map((a) => JSON.stringify(a.body.data))).size).toBe(1);
  });

  it("answers 404 for an unknown application and 422 for a malformed uuid", async () => {
    expect((await submit(production, crypto.randomUUID())).status).toBe(404);
    const malformed = await submit(production, "abc");
    expect(malformed.status).toBe(422);
    expect(malformed.body.error.details).toEqual([
      { field: "application_uuid", message: "must be a UUID" },
    ]);
  });

  it("takes no fields in the body", async () => {
    const res = await submit(production, await newApplication(production), {
      submitted_at: "2026-01-01",
    });
    expect(res.status).toBe(422);
    expect(res.body.error.details?.[0]?.field).toBe("body");
  });

  it("needs applications:write (401 without a token, 403 with applications:read)", async () => {
    const uuid = await newApplication(production);
    const anonymous = await fetchJson<Body>(
      `${production.baseUrl}/v1/applications/${uuid}/submission`,
      { method: "POST" },
    );
    expect(anonymous.status).toBe(401);
    const readOnly = await submit(production, uuid, undefined, "applications:read");
    expect(readOnly.status).toBe(403);
    expect(readOnly.body.error.message).toContain("applications:write");
  });

  it("answers 405 for another method on the submission path", async () => {
    const res = await production.get(`/v1/applications/${crypto.randomUUID()}/submission`);
    expect(res.status).toBe(405);
    expect(res.headers.get("allow")).toBe("POST");
  });
});

describe("sandbox differences", () => {
  it("has no submission route: 404 even with applications:write", async () => {
    const uuid = await newApplication(sandbox);
    const res = await submit(sandbox, uuid);
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe("NOT_FOUND");
  });

  it("lets applications:write create applications, as in production", async () => {
    const res = await sandbox.post(
      "/v1/applications",
      applicationBody(sandbox.newVacancy(), person()),
      { scope: "applications:write" },
    );
    expect(res.status).toBe(201);
  });
});
