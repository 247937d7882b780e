import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fetchJson } from "@svc/testing";
import { mergeCandidates } from "../src/domain/merge-candidates.ts";
import {
  applicationBody,
  person,
  startHarness,
  type Body,
  type Harness,
} from "./support/harness.ts";

let h: Harness;
let fixedNow: Date | undefined;
const at = (iso: string) => {
  fixedNow = new Date(iso);
};

// Seeded once: four candidates, five applications, at known instants around a Brussels midnight.
const seed = {
  candidates: [] as string[],
  applications: [] as string[],
  vacancies: [] as string[],
  merged: "",
  survivor: "",
};

beforeAll(async () => {
  h = await startHarness({ now: () => fixedNow ?? new Date() });
  const [p1, p2, p3] = [person(), person(), person()];
  seed.vacancies = [
    h.newVacancy("practice-a"),
    h.newVacancy("practice-b"),
    h.newVacancy("practice-b"),
  ];
  const [v1, v2, v3] = seed.vacancies as [string, string, string];
  const steps: Array<[string, string, { email?: string; phone?: string }]> = [
    ["2026-03-01T22:30:00Z", v1, p1], // 23:30 on 1 March in Brussels
    ["2026-03-01T23:30:00Z", v1, p2], // 00:30 on 2 March in Brussels
    ["2026-03-05T10:00:00Z", v2, p1],
    ["2026-03-05T11:00:00Z", v3, { email: p1.email, phone: p2.phone }], // ambiguous
    ["2026-03-06T09:00:00Z", v3, { email: "unusable", phone: "none" }], // unresolved
    ["2026-03-07T09:00:00Z", v2, p3],
  ];
  for (const [instant, vacancy, candidate] of steps) {
    at(instant);
    const res = await h.post("/v1/applications", applicationBody(vacancy, candidate));
    expect(res.status).toBe(201);
    seed.applications.push(String(res.body.data.application_uuid));
    if (res.body.data.candidate_created) seed.candidates.push(String(res.body.data.candidate_uuid));
  }
  at("2026-03-08T12:00:00Z");
  [seed.survivor, seed.merged] = seed.candidates as [string, string];
  await mergeCandidates(
    { store: h.store, now: () => fixedNow as Date },
    seed.merged,
    seed.survivor,
  );
  fixedNow = undefined;
});
afterAll(() => h.close());

const uuidsOf = (body: Body, field: string) => body.data.map((item) => item[field]);

describe("GET /v1/candidates", () => {
  it("lists identities with exactly the candidate fields, oldest first, with pagination", async () => {
    const res = await h.get("/v1/candidates");
    expect(res.status).toBe(200);
    expect(uuidsOf(res.body, "candidate_uuid")).toEqual(seed.candidates);
    for (const item of res.body.data)
      expect(Object.keys(item).sort()).toEqual([
        "candidate_uuid",
        "created_at",
        "merged_into_candidate_uuid",
        "status",
        "updated_at",
      ]);
    expect(res.body.data[0]).toEqual({
      candidate_uuid: seed.candidates[0],
      status: "active",
      merged_into_candidate_uuid: null,
      created_at: "2026-03-01T22:30:00.000+00:00",
      updated_at: null,
    });
    expect(res.body.meta.pagination).toEqual({ page: 1, per_page: 25, total: 4, total_pages: 1 });
  });

  it("walks pages without gaps or repeats", async () => {
    const pages = await Promise.all(
      [1, 2, 3].map((page) => h.get(`/v1/candidates?per_page=3&page=${page}`)),
    );
    expect(pages.flatMap((p) => uuidsOf(p.body, "candidate_uuid"))).toEqual(seed.candidates);
    expect(pages[2]?.body.data).toEqual([]);
    expect(pages[0]?.body.meta.pagination).toEqual({
      page: 1,
      per_page: 3,
      total: 4,
      total_pages: 2,
    });
  });

  it("filters on status", async () => {
    const merged = await h.get("/v1/candidates?status=merged");
    expect(merged.body.data).toEqual([
      expect.objectContaining({
        candidate_uuid: seed.merged,
        status: "merged",
        merged_into_candidate_uuid: seed.survivor,
        updated_at: "2026-03-08T12:00:00.000+00:00",
      }),
    ]);
    const active = await h.get("/v1/candidates?status=active");
    expect(uuidsOf(active.body, "candidate_uuid")).not.toContain(seed.merged);
    expect((await h.get("/v1/candidates?status=inactive")).body.data).toEqual([]);
  });

  it("reads a created_since date as midnight in Brussels and a date-time as that instant", async () => {
    const byDate = await h.get("/v1/candidates?created_since=2026-03-02");
    expect(uuidsOf(byDate.body, "candidate_uuid")).toEqual(seed.candidates.slice(1));
    const byInstant = await h.get(
      `/v1/candidates?created_since=${encodeURIComponent("2026-03-01T23:30:00+01:00")}`,
    );
    expect(uuidsOf(byInstant.body, "candidate_uuid")).toEqual(seed.candidates);
  });

  it.each([
    ["status=gone", "status"],
    ["created_since=2026-02-30", "created_since"],
    ["created_since=2026-03-02T10:00:00", "created_since"],
    ["per_page=101", "per_page"],
    ["page=0", "page"],
    ["email=a@b.be", "email"],
  ])("answers 422 naming the parameter for %s", async (query, field) => {
    const res = await h.get(`/v1/candidates?${query}`);
    expect(res.status).toBe(422);
    expect(res.body.error.details?.map((d) => d.field)).toEqual([field]);
  });

  it("reads one identity, 404 for an unknown uuid and 422 for a malformed one", async () => {
    const one = await h.get(`/v1/candidates/${seed.merged}`);
    expect(one.body.data).toMatchObject({
      candidate_uuid: seed.merged,
      status: "merged",
      merged_into_candidate_uuid: seed.survivor,
    });
    expect((await h.get(`/v1/candidates/${crypto.randomUUID()}`)).status).toBe(404);
    const malformed = await h.get("/v1/candidates/not-a-uuid");
    expect(malformed.status).toBe(422);
    expect(malformed.body.error.details).toEqual([
      { field: "candidate_uuid", message: "must be a UUID" },
    ]);
  });

  it("refuses a query parameter on an endpoint that takes none (422 naming it)", async () => {
    for (const path of [
      `/v1/candidates/${seed.survivor}?expand=all`,
      `/v1/applications/${seed.applications[0]}?fields=x`,
    ]) {
      const res = await h.get(path);
      expect(res.status, path).toBe(422);
      expect(
        res.body.error.details?.map((d) => d.field),
        path,
      ).toEqual([path.split("?")[1]?.split("=")[0]]);
    }
  });
});

describe("GET /v1/applications", () => {
  const FIELDS = [
    "application_uuid",
    "candidate_uuid",
    "consent_flag",
    "created_at",
    "entrypoint_code",
    "entrypoint_raw",
    "practice_id",
    "resolution",
    "updated_at",
    "vacancy_uuid",
  ];

  it("lists applications with the application fields and updated_at, no internal links", async () => {
    const res = await h.get("/v1/applications");
    expect(uuidsOf(res.body, "application_uuid")).toEqual(seed.applications);
    for (const item of res.body.data) expect(Object.keys(item).sort()).toEqual(FIELDS);
    expect(res.body.meta.pagination?.total).toBe(6);
  });

  it("filters on candidate, vacancy, practice, resolution and creation time", async () => {
    const byCandidate = await h.get(`/v1/applications?candidate_uuid=${seed.survivor}`);
    expect(uuidsOf(byCandidate.body, "application_uuid")).toEqual([
      seed.applications[0],
      seed.applications[2],
      seed.applications[3],
    ]);
    const byVacancy = await h.get(`/v1/applications?vacancy_uuid=${seed.vacancies[0]}`);
    expect(uuidsOf(byVacancy.body, "application_uuid")).toEqual(seed.applications.slice(0, 2));
    const byPractice = await h.get("/v1/applications?practice_id=practice-b&per_page=2&page=2");
    expect(uuidsOf(byPractice.body, "application_uuid")).toEqual(seed.applications.slice(4, 6));
    expect(byPractice.body.meta.pagination).toEqual({
      page: 2,
      per_page: 2,
      total: 4,
      total_pages: 2,
    });
    expect(
      uuidsOf((await h.get("/v1/applications?resolution=ambiguous")).body, "application_uuid"),
    ).toEqual([seed.applications[3]]);
    expect(
      uuidsOf((await h.get("/v1/applications?resolution=unresolved")).body, "application_uuid"),
    ).toEqual([seed.applications[4]]);
    expect(
      uuidsOf((await h.get("/v1/applications?created_since=2026-03-06")).body, "application_uuid"),
    ).toEqual(seed.applications.slice(4));
  });

  it("refuses malformed filters", async () => {
    for (const query of ["candidate_uuid=x", "resolution=maybe", "vacancy_uuid=", "practice_id="]) {
      expect((await h.get(`/v1/applications?${query}`)).status, query).toBe(422);
    }
  });

  it("reads one application, the target of the events' links.self", async () => {
    const res = await h.get(`/v1/applications/${seed.applications[1]}`);
    expect(Object.keys(res.body.data).sort()).toEqual(FIELDS);
    expect(res.body.data).toMatchObject({
      application_uuid: seed.applications[1],
      candidate_uuid: seed.merged,
      vacancy_uuid: seed.vacancies[0],
      practice_id: "practice-a",
      updated_at: null,
    });
    expect((await h.get(`/v1/applications/${crypto.randomUUID()}`)).status).toBe(404);
    expect((await h.get("/v1/applications/123")).status).toBe(422);
  });
});

describe("GET /v1/recruitment-cases", () => {
  it("lists one case per candidate and vacancy with its applications", async () => {
    const res = await h.get("/v1/recruitment-cases");
    expect(res.body.meta.pagination?.total).toBe(6);
    for (const item of res.body.data) {
      expect(Object.keys(item).sort()).toEqual([
        "application_uuids",
        "candidate_uuid",
        "created_at",
        "practice_id",
        "recruitment_case_uuid",
        "updated_at",
        "vacancy_uuid",
      ]);
    }
    expect(res.body.data.map((c) => c.application_uuids)).toEqual(
      seed.applications.map((a) => [a]),
    );
    expect(res.body.data[0]).toMatchObject({
      candidate_uuid: seed.survivor,
      vacancy_uuid: seed.vacancies[0],
      practice_id: "practice-a",
      created_at: "2026-03-01T22:30:00.000+00:00",
      updated_at: null,
    });
  });

  it("filters on candidate, vacancy, practice and creation time, and reads one case", async () => {
    const byCandidate = await h.get(`/v1/recruitment-cases?candidate_uuid=${seed.merged}`);
    expect(byCandidate.body.data).toHaveLength(1);
    const id = String(byCandidate.body.data[0]?.recruitment_case_uuid);
    expect(
      (await h.get(`/v1/recruitment-cases?vacancy_uuid=${seed.vacancies[2]}`)).body.data,
    ).toHaveLength(2);
    expect((await h.get("/v1/recruitment-cases?practice_id=practice-a")).body.data).toHaveLength(2);
    expect((await h.get("/v1/recruitment-cases?created_since=2026-03-07")).body.data).toHaveLength(
      1,
    );
    const one = await h.get(`/v1/recruitment-cases/${id}`);
    expect(one.body.data).toMatchObject({
      recruitment_case_uuid: id,
      candidate_uuid: seed.merged,
      application_uuids: [seed.applications[1]],
    });
    expect((await h.get(`/v1/recruitment-cases/${crypto.randomUUID()}`)).status).toBe(404);
    expect((await h.get("/v1/recruitment-cases/nope")).status).toBe(422);
  });
});

describe("scopes", () => {
  const endpoints: Array<[string, string]> = [
    ["/v1/candidates", "candidates:read"],
    [`/v1/candidates/00000000-0000-4000-8000-000000000000`, "candidates:read"],
    ["/v1/applications", "applications:read"],
    [`/v1/applications/00000000-0000-4000-8000-000000000000`, "applications:read"],
    ["/v1/recruitment-cases", "recruitment-cases:read"],
    [`/v1/recruitment-cases/00000000-0000-4000-8000-000000000000`, "recruitment-cases:read"],
  ];

  it.each(endpoints)(
    "GET %s answers 401 without a token and 403 naming %s with another scope",
    async (path, scope) => {
      const anonymous = await fetchJson<Body>(`${h.baseUrl}${path}`);
      expect(anonymous.status).toBe(401);
      expect(anonymous.body.error.code).toBe("UNAUTHENTICATED");
      const others = "candidates:read applications:read applications:write recruitment-cases:read"
        .split(" ")
        .filter((s) => s !== scope)
        .join(" ");
      const wrong = await h.get(path, { scope: others });
      expect(wrong.status).toBe(403);
      expect(wrong.body.error.code).toBe("INSUFFICIENT_SCOPE");
      expect(wrong.body.error.message).toContain(scope);
      expect((await h.get(path, { scope })).status).not.toBe(403);
    },
  );
});
