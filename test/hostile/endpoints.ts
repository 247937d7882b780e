/**
 * Every public endpoint (charts/integration-service/routes.json, each service's routes) with what
 * a hostile request needs to know: where it is served, its scope, its query parameters, its body
 * and whether it writes. Write endpoints must never accept a request of this suite.
 */
import fc from "fast-check";
import {
  breakingBody,
  isObject,
  obj,
  unknownKey,
  wrongType,
  protoPayload,
  type J,
  type Mutation,
} from "./json-bodies.ts";
import { hostileText, longText } from "./strings.ts";

/**
 * gateway: the `npm start` stack (sandbox); the production-only routes run in-process (see
 * world.ts).
 */
export type Target = "gateway" | "identity-production" | "practices-production";
export type BodyKind =
  | "application"
  | "webhook-create"
  | "webhook-patch"
  | "crm-put"
  | "crm-bulk"
  | "oauth-form"
  | "empty";
export type IdKind =
  | "vacancy"
  | "practice"
  | "candidate"
  | "application"
  | "recruitment-case"
  | "webhook"
  | "delivery"
  | "event"
  | "crm";

export interface Endpoint {
  name: string;
  method: string;
  /** Path with `{id}` placeholders, filled in order from `ids`. */
  path: string;
  ids?: IdKind[];
  target: Target;
  scope?: string;
  /** Known query parameters and valid values for each (list endpoints). */
  query?: Record<string, ReadonlyArray<string>>;
  body?: BodyKind;
  bodyLimit?: number;
  /** Changes stored data when accepted: every request of this suite must be refused. */
  write: boolean;
}

const PAGE = { page: ["1", "2", "1000000"], per_page: ["1", "25", "100"] };
const SINCE = ["2024-01-01", "2024-01-01T00:00:00Z", "2024-06-15T12:00:00+02:00"];

export const ENDPOINTS: ReadonlyArray<Endpoint> = [
  { name: "health", method: "GET", path: "/health", target: "gateway", write: false },
  { name: "v1 health", method: "GET", path: "/v1/health", target: "gateway", write: false },
  { name: "version", method: "GET", path: "/version", target: "gateway", write: false },
  { name: "v1 version", method: "GET", path: "/v1/version", target: "gateway", write: false },
  {
    name: "token",
    method: "POST",
    path: "/oauth/token",
    target: "gateway",
    body: "oauth-form",
    bodyLimit: 4 * 1024,
    write: true,
  },
  {
    name: "list vacancies",
    method: "GET",
    path: "/v1/vacancies",
    target: "gateway",
    scope: "vacancies:read",
    write: false,
    query: {
      ...PAGE,
      language: ["nl", "fr"],
      province: ["ANT", "OVL"],
      position: ["TA", "MH"],
      status: ["created", "open", "filled"],
      published: ["true", "false"],
      practice: ["ACC%2F2009%2F117"],
      updated_since: SINCE,
    },
  },
  {
    name: "get vacancy",
    method: "GET",
    path: "/v1/vacancies/{id}",
    ids: ["vacancy"],
    target: "gateway",
    scope: "vacancies:read",
    write: false,
    query: {},
  },
  {
    name: "vacancy metadata",
    method: "GET",
    path: "/v1/meta/vacancies",
    target: "gateway",
    scope: "vacancies:read",
    write: false,
    query: {},
  },
  {
    name: "list practices",
    method: "GET",
    path: "/v1/practices",
    target: "gateway",
    scope: "practices:read",
    write: false,
    query: {
      ...PAGE,
      active: ["true", "false"],
      visible: ["true", "false"],
      language: ["nl", "fr"],
      province: ["Antwerpen"],
      search: ["Tandartspraktijk%20Vermeulen"],
    },
  },
  {
    name: "get practice",
    method: "GET",
    path: "/v1/practices/{id}",
    ids: ["practice"],
    target: "gateway",
    scope: "practices:read",
    write: false,
    query: {},
  },
  {
    name: "practice metadata",
    method: "GET",
    path: "/v1/meta/practices",
    target: "gateway",
    scope: "practices:read",
    write: false,
    query: {},
  },
  {
    name: "list candidates",
    method: "GET",
    path: "/v1/candidates",
    target: "gateway",
    scope: "candidates:read",
    write: false,
    query: { ...PAGE, status: ["active", "merged", "inactive"], created_since: SINCE },
  },
  {
    name: "get candidate",
    method: "GET",
    path: "/v1/candidates/{id}",
    ids: ["candidate"],
    target: "gateway",
    scope: "candidates:read",
    write: false,
  },
  {
    name: "list applications",
    method: "GET",
    path: "/v1/applications",
    target: "gateway",
    scope: "applications:read",
    write: false,
    query: {
      ...PAGE,
      candidate_uuid: ["00000000-0000-4000-8000-000000000000"],
      vacancy_uuid: ["00000000-0000-4000-8000-000000000000"],
      practice_id: ["p1"],
      resolution: ["resolved", "unresolved", "ambiguous"],
      created_since: SINCE,
    },
  },
  {
    name: "get application",
    method: "GET",
    path: "/v1/applications/{id}",
    ids: ["application"],
    target: "gateway",
    scope: "applications:read",
    write: false,
  },
  {
    name: "create application",
    method: "POST",
    path: "/v1/applications",
    target: "gateway",
    scope: "applications:write",
    body: "application",
    bodyLimit: 16 * 1024,
    write: true,
  },
  {
    name: "submit application",
    method: "POST",
    path: "/v1/applications/{id}/submission",
    ids: ["application"],
    target: "identity-production",
    scope: "applications:write",
    body: "empty",
    bodyLimit: 256 * 1024,
    write: true,
  },
  {
    name: "list recruitment cases",
    method: "GET",
    path: "/v1/recruitment-cases",
    target: "gateway",
    scope: "recruitment-cases:read",
    write: false,
    query: {
      ...PAGE,
      candidate_uuid: ["00000000-0000-4000-8000-000000000000"],
      vacancy_uuid: ["00000000-0000-4000-8000-000000000000"],
      practice_id: ["p1"],
      created_since: SINCE,
    },
  },
  {
    name: "get recruitment case",
    method: "GET",
    path: "/v1/recruitment-cases/{id}",
    ids: ["recruitment-case"],
    target: "gateway",
    scope: "recruitment-cases:read",
    write: false,
  },
  {
    name: "create webhook",
    method: "POST",
    path: "/v1/webhooks",
    target: "gateway",
    scope: "webhooks:write",
    body: "webhook-create",
    bodyLimit: 256 * 1024,
    write: true,
  },
  {
    name: "list events",
    method: "GET",
    path: "/v1/events",
    target: "gateway",
    scope: "webhooks:read",
    write: false,
    query: {
      per_page: PAGE.per_page,
      type: ["vacancy.updated", "vacancy.created,practice.updated", "system.ping"],
      created_since: SINCE,
      created_before: SINCE,
    },
  },
  {
    name: "get event",
    method: "GET",
    path: "/v1/events/{id}",
    ids: ["event"],
    target: "gateway",
    scope: "webhooks:read",
    write: false,
  },
  {
    name: "list webhooks",
    method: "GET",
    path: "/v1/webhooks",
    target: "gateway",
    scope: "webhooks:read",
    write: false,
    query: PAGE,
  },
  {
    name: "get webhook",
    method: "GET",
    path: "/v1/webhooks/{id}",
    ids: ["webhook"],
    target: "gateway",
    scope: "webhooks:read",
    write: false,
  },
  {
    name: "change webhook",
    method: "PATCH",
    path: "/v1/webhooks/{id}",
    ids: ["webhook"],
    target: "gateway",
    scope: "webhooks:write",
    body: "webhook-patch",
    bodyLimit: 256 * 1024,
    write: true,
  },
  {
    name: "delete webhook",
    method: "DELETE",
    path: "/v1/webhooks/{id}",
    ids: ["webhook"],
    target: "gateway",
    scope: "webhooks:write",
    write: true,
  },
  {
    name: "test webhook",
    method: "POST",
    path: "/v1/webhooks/{id}/test",
    ids: ["webhook"],
    target: "gateway",
    scope: "webhooks:write",
    write: true,
  },
  {
    name: "rotate webhook secret",
    method: "POST",
    path: "/v1/webhooks/{id}/rotate-secret",
    ids: ["webhook"],
    target: "gateway",
    scope: "webhooks:write",
    write: true,
  },
  {
    name: "list deliveries",
    method: "GET",
    path: "/v1/webhooks/{id}/deliveries",
    ids: ["webhook"],
    target: "gateway",
    scope: "webhooks:read",
    write: false,
    query: {
      ...PAGE,
      status: ["pending", "succeeded", "failed", "dead"],
      event_type: ["vacancy.created", "system.ping"],
      created_since: SINCE,
      created_before: SINCE,
    },
  },
  {
    name: "list deliveries of every webhook",
    method: "GET",
    path: "/v1/webhooks/deliveries",
    target: "gateway",
    scope: "webhooks:read",
    write: false,
    query: {
      ...PAGE,
      status: ["pending", "failed"],
      event_type: ["vacancy.created", "system.ping"],
      created_since: SINCE,
      created_before: SINCE,
    },
  },
  {
    name: "list event types",
    method: "GET",
    path: "/v1/webhooks/event-types",
    target: "gateway",
    scope: "webhooks:read",
    write: false,
  },
  {
    name: "list portal sessions",
    method: "GET",
    path: "/v1/webhooks/portal-sessions",
    target: "gateway",
    scope: "webhooks:read",
    write: false,
    query: PAGE,
  },
  {
    name: "get delivery",
    method: "GET",
    path: "/v1/webhooks/{id}/deliveries/{id}",
    ids: ["webhook", "delivery"],
    target: "gateway",
    scope: "webhooks:read",
    write: false,
  },
  {
    name: "redeliver",
    method: "POST",
    path: "/v1/webhooks/{id}/deliveries/{id}/redeliver",
    ids: ["webhook", "delivery"],
    target: "gateway",
    scope: "webhooks:write",
    write: true,
  },
  {
    name: "crm mirror get",
    method: "GET",
    path: "/v1/crm-mirror/accounts/{id}",
    ids: ["crm"],
    target: "practices-production",
    scope: "crm-mirror:write",
    write: false,
  },
  {
    name: "crm mirror list",
    method: "GET",
    path: "/v1/crm-mirror/accounts",
    target: "practices-production",
    scope: "crm-mirror:write",
    write: false,
    query: { per_page: PAGE.per_page },
  },
  {
    name: "crm mirror put",
    method: "PUT",
    path: "/v1/crm-mirror/accounts/{id}",
    ids: ["crm"],
    target: "practices-production",
    scope: "crm-mirror:write",
    body: "crm-put",
    bodyLimit: 4 * 1024 * 1024,
    write: true,
  },
  {
    name: "crm mirror delete",
    method: "DELETE",
    path: "/v1/crm-mirror/accounts/{id}",
    ids: ["crm"],
    target: "practices-production",
    scope: "crm-mirror:write",
    write: true,
  },
  {
    name: "crm mirror bulk",
    method: "POST",
    path: "/v1/crm-mirror/accounts:bulk",
    target: "practices-production",
    scope: "crm-mirror:write",
    body: "crm-bulk",
    bodyLimit: 4 * 1024 * 1024,
    write: true,
  },
  {
    name: "list practices (production)",
    method: "GET",
    path: "/v1/practices",
    target: "practices-production",
    scope: "practices:read",
    write: false,
    query: PAGE,
  },
];

export const byName = (name: string): Endpoint => {
  const found = ENDPOINTS.find((e) => e.name === name);
  if (!found) throw new Error(`no endpoint ${name}`);
  return found;
};

/** Paths that are not endpoints (the gateway and every service answer 404). */
export const UNKNOWN_PATHS = [
  "/",
  "/v1",
  "/v1/",
  "/v2/vacancies",
  "/v1/unknown",
  "/.well-known/jwks.json",
  "/livez",
  "/readyz",
  "/metrics",
  "/openapi.json",
  "/v1/meta",
  "/v1/meta/unknown",
  "/oauth",
  "/oauth/authorize",
  "/V1/VACANCIES",
  "/v1//vacancies",
  "/v1/vacancies/a/b/c",
  "/v1/practices/%2e%2e/%2e%2e/oauth/token",
  "/v1/vacancies/../../oauth/token",
  "/admin",
  "/.env",
  "/.git/config",
  "/index.php",
  "/wp-login.php",
];

// ---- bodies: a valid base per kind, then mutations that each leave the body invalid ----

const VALID_UUID = "00000000-0000-4000-8000-000000000000";
const drop = (...path: string[]): Mutation => ({ op: "delete", path });
const set = (path: string[], value: J): Mutation => ({ op: "set", path, value });
const setArb = (path: string[], value: fc.Arbitrary<J>) => value.map((v) => set(path, v));

const applicationBase = obj({
  vacancy_uuid: VALID_UUID,
  candidate: obj({ email: "kandidaat@voorbeeld.be", phone: "+32470000000" }),
  consent: true,
  practice_id: null,
  entrypoint: "website",
});
const applicationBreaking: fc.Arbitrary<Mutation> = fc.oneof(
  fc.constantFrom(
    drop("vacancy_uuid"),
    drop("candidate"),
    drop("consent"),
    set(["candidate"], obj({})),
    set(["candidate"], obj({ email: null, phone: null })),
    set(["consent"], "true"),
    set(["consent"], 1),
    set(["consent"], null),
  ),
  setArb(
    ["vacancy_uuid"],
    fc.oneof(
      wrongType("string"),
      hostileText.filter(
        (s) => !/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(s),
      ),
    ),
  ),
  setArb(["candidate"], wrongType("object")),
  setArb(["consent"], wrongType("boolean")),
  setArb(
    ["candidate", "email"],
    fc.oneof(
      wrongType("string").filter((v) => v !== null),
      longText(5_000).filter((s) => s.length > 320),
      fc.constantFrom("", " ", "\t\n"),
    ),
  ),
  setArb(
    ["candidate", "phone"],
    fc.oneof(
      wrongType("string").filter((v) => v !== null),
      longText(5_000).filter((s) => s.length > 64),
      fc.constantFrom("", "   "),
    ),
  ),
  setArb(
    ["practice_id"],
    fc.oneof(
      wrongType("string").filter((v) => v !== null),
      longText(3_000).filter((s) => s.length > 100),
      fc.constant(" "),
    ),
  ),
  setArb(
    ["entrypoint"],
    fc.oneof(
      wrongType("string").filter((v) => v !== null),
      longText(3_000).filter((s) => s.length > 200),
      fc.constantFrom("mail kandidaat@voorbeeld.be", "x a@b.cd y"),
    ),
  ),
  fc.tuple(unknownKey, fc.oneof(hostileText, protoPayload)).map(([k, v]) => set([k], v)),
  fc.tuple(unknownKey, hostileText).map(([k, v]) => set(["candidate", k], v)),
  wrongType("object").map((v): Mutation => ({ op: "replace", value: v })),
);
const applicationNoise: fc.Arbitrary<Mutation> = fc.oneof(
  setArb(
    ["entrypoint"],
    fc.oneof(
      fc.constant(null),
      hostileText.filter((s) => s.length <= 200 && !s.includes("@")),
    ),
  ),
  setArb(["practice_id"], fc.oneof(fc.constant(null), fc.constantFrom("p1", "ACC/2009/117"))),
);

const webhookCreateBase = obj({
  url: "https://hooks.example.com/endpoint",
  event_types: ["vacancy.created"],
});
/**
 * URLs the guard must refuse without any DNS lookup: wrong scheme, loopback, private, link-local,
 * metadata, CGNAT, odd IP notations.
 */
const BAD_URLS = [
  "http://hooks.example.com/x",
  "ftp://hooks.example.com/x",
  "file:///etc/passwd",
  "gopher://127.0.0.1:25/",
  "javascript:alert(1)",
  "data:text/plain,x",
  "//hooks.example.com",
  "hooks.example.com",
  "",
  " ",
  "https://127.0.0.1/x",
  "https://127.1/x",
  "https://2130706433/x",
  "https://0x7f000001/x",
  "https://0177.0.0.1/x",
  "https://0.0.0.0/x",
  "https://[::1]/x",
  "https://[::]/x",
  "https://[::ffff:127.0.0.1]/x",
  "https://[::ffff:7f00:1]/x",
  "https://[64:ff9b::7f00:1]/x",
  "https://10.0.0.1/x",
  "https://172.16.0.1/x",
  "https://192.168.1.1/x",
  "https://169.254.169.254/latest/meta-data/",
  "https://[fe80::1]/x",
  "https://100.64.0.1/x",
  "https://224.0.0.1/x",
  "https://255.255.255.255/x",
  "https://[fd00::1]/x",
  "https://localhost/x",
  "https://LOCALHOST./x",
  "https://127.0.0.1:443@127.0.0.1/x",
  "https://127.0.0.1%2F@hooks.example.com/x",
  "https:\\\\127.0.0.1\\x",
  "https://[::1]:99999/x",
  "https://exa mple.com/x",
  "https://%00/x",
  "https://example.com:-1/x",
];
const webhookCreateBreaking: fc.Arbitrary<Mutation> = fc.oneof(
  fc.constantFrom(
    drop("url"),
    drop("event_types"),
    set(["event_types"], []),
    set(["event_types"], ["vacancy.created", 1]),
    set(["event_types"], ["no.such.event"]),
    set(["event_types"], ["VACANCY.CREATED"]),
    set(["event_types"], [""]),
  ),
  setArb(
    ["url"],
    fc.oneof(
      fc.constantFrom<J>(...BAD_URLS),
      wrongType("string"),
      longText(10_000)
        .filter((s) => s.length > 2_048)
        .map((s) => `https://hooks.example.com/${s}`),
    ),
  ),
  setArb(
    ["event_types"],
    fc.oneof(
      wrongType("array"),
      fc.array(hostileText, { minLength: 1, maxLength: 3 }).map((a) => [...a, "no.such.event"]),
      fc.constant(Array.from({ length: 51 }, () => "vacancy.created")),
    ),
  ),
  fc.tuple(unknownKey, fc.oneof(hostileText, protoPayload)).map(([k, v]) => set([k], v)),
  wrongType("object").map((v): Mutation => ({ op: "replace", value: v })),
);
const webhookPatchBreaking: fc.Arbitrary<Mutation> = fc.oneof(
  webhookCreateBreaking,
  fc.constant<Mutation>({ op: "replace", value: obj({}) }),
  setArb(["enabled"], wrongType("boolean")),
);

const account = (modifiedOn: string) =>
  obj({
    name: "Tandartspraktijk Vermeulen",
    alias: null,
    organisation_type: "Groepspraktijk",
    language: "nl",
    identifiers: obj({ vat: "BE0412.345.678" }),
    address: obj({
      street: "Kortrijksesteenweg 112",
      postal_code: "9000",
      city: "Gent",
      province: "Oost-Vlaanderen",
      country: "BE",
    }),
    contact: obj({ email: null, phone: null }),
    period: obj({ start_date: "2015-01-01", stop_date: "2999-12-31" }),
    modified_on: modifiedOn,
  });
const ACCOUNT_FIELDS = [
  "name",
  "alias",
  "organisation_type",
  "language",
  "identifiers",
  "address",
  "contact",
  "period",
  "modified_on",
];
/**
 * For PUT, a crm_id in the body that differs from the path is also a break; in a bulk item a crm_id
 * is required, so not there.
 */
const crmBreaking = (put: boolean): fc.Arbitrary<Mutation> =>
  fc.oneof(
    fc.constantFrom(...ACCOUNT_FIELDS).map((f) => drop(f)),
    fc.constantFrom(
      drop("address", "city"),
      drop("period", "stop_date"),
      drop("identifiers", "vat"),
      ...(put ? [set(["crm_id"], "another-id-than-the-path")] : []),
    ),
    setArb(
      ["modified_on"],
      fc.oneof(
        wrongType("string"),
        fc.constantFrom<J>(
          "2025-06-01",
          "2025-06-01T10:00:00",
          "2025-02-30T10:00:00Z",
          "1969-12-31T23:59:59Z",
          "2999-01-01T00:00:00Z",
          "2025-06-01T24:00:00Z",
          "2025-06-01 10:00:00Z",
          "",
        ),
      ),
    ),
    setArb(
      ["period", "start_date"],
      fc.oneof(
        wrongType("string").filter((v) => v !== null),
        fc.constantFrom<J>("2024-02-30", "2024-13-01", "20240101", "2024-1-1", "0000-00-00"),
      ),
    ),
    setArb(
      ["name"],
      fc.oneof(
        wrongType("string").filter((v) => v !== null),
        longText(3_000).filter((s) => s.length > 255),
      ),
    ),
    setArb(["address"], wrongType("object")),
    fc.tuple(unknownKey, fc.oneof(hostileText, protoPayload)).map(([k, v]) => set([k], v)),
    fc.tuple(unknownKey, hostileText).map(([k, v]) => set(["address", k], v)),
    wrongType("object").map((v): Mutation => ({ op: "replace", value: v })),
  );
const crmNoise: fc.Arbitrary<Mutation> = setArb(
  ["alias"],
  fc.oneof(
    fc.constant(null),
    hostileText.filter((s) => s.length <= 255),
  ),
);

function bulkOf(accounts: fc.Arbitrary<J[]>): fc.Arbitrary<J> {
  return accounts.map((list) => obj({ accounts: list }));
}

/** A JSON body of this kind that the endpoint must refuse. */
export function invalidJsonBody(kind: BodyKind, modifiedOn: string): fc.Arbitrary<J> {
  switch (kind) {
    case "application":
      return breakingBody(applicationBase, applicationBreaking, applicationNoise);
    case "webhook-create":
      return breakingBody(
        webhookCreateBase,
        webhookCreateBreaking,
        fc.constant<Mutation>(set(["url"], "https://hooks.example.com/endpoint")),
      );
    case "webhook-patch":
      return breakingBody(
        obj({ enabled: false }),
        webhookPatchBreaking,
        fc.constant<Mutation>(set(["enabled"], true)),
      );
    case "crm-put":
      return breakingBody(account(modifiedOn), crmBreaking(true), crmNoise);
    case "crm-bulk": {
      const valid = account(modifiedOn);
      const bad = breakingBody(valid, crmBreaking(false), crmNoise);
      return fc.oneof(
        bulkOf(
          fc
            .tuple(fc.array(fc.constant(valid), { maxLength: 3 }), bad)
            .map(([ok, b]) => [...ok.map((a) => addCrmId(a)), b]),
        ),
        fc.constantFrom<J>(
          obj({ accounts: [] }),
          obj({}),
          obj({ accounts: obj({}) }),
          obj({ accounts: null }),
          [],
          obj({ accounts: [valid] }),
        ),
        fc.constant<J>(
          obj({ accounts: Array.from({ length: 1_001 }, (_, i) => addCrmId(valid, `bulk-${i}`)) }),
        ),
      );
    }
    case "oauth-form":
    case "empty":
      return fc.oneof(wrongType("object"), fc.constant<J>(obj({ unexpected: true })));
  }
}

/**
 * Bulk items need a crm_id; these are valid ones, so only the breaking item makes the request
 * invalid.
 */
function addCrmId(account: J, id = "hostile-valid-id"): J {
  return isObject(account) ? { entries: [["crm_id", id], ...account.entries] } : account;
}
