/**
 * Every write operation, one entry each: how to generate its requests and how to read back what a
 * 2xx stored. A request is a valid one with some fields replaced by generated values (`wide`); a
 * 422 may name only those fields. Adding an operation is adding an entry to WRITE_OPERATIONS.
 */
import fc from "fast-check";
import { expect } from "vitest";
import {
  anyString,
  anyValue,
  encodeSegment,
  microsOf,
  patternDate,
  patternDateTime,
} from "./arbitraries.ts";
import type { Answer, Request, World } from "./world.ts";

/** A generated request and the fields that carry generated values. */
export interface Generated {
  request: Request;
  /** Field names as a 422 names them (`address.city`, `accounts[1].crm_id`, `crm_id`). */
  wide: string[];
  /** What the read-back compares with (the values sent, in the operation's own terms). */
  sent: Record<string, unknown>;
  /** A value shared with the read-back (an id the request was made for). */
  client: string;
}

export interface WriteOperation {
  name: string;
  target: "practices" | "identity" | "webhooks";
  /** Prepares what a request needs (an application to submit, a subscription to change). */
  generate(world: World): fc.Arbitrary<() => Promise<Generated>>;
  /** After a 2xx: reads the record back and fails unless it holds exactly what was sent. */
  readBack(world: World, generated: Generated, answer: Answer): Promise<void>;
  /** Fields one rule judges together (a window's ends): a 422 may name any of them. */
  together?: ReadonlyArray<ReadonlyArray<string>>;
  /** 4xx statuses other than 422 this operation may answer these requests, and why. */
  otherStatuses?: Record<number, string>;
}

const BODY_LIMIT = { 413: "a very long value takes the body over the limit" };

/** A field: a good value or a generated one. `name` is the field as a 422 names it. */
interface Field {
  name: string;
  good: fc.Arbitrary<unknown>;
  wide: fc.Arbitrary<unknown>;
}

/**
 * Values for the fields: good ones, with one or two (sometimes none) generated instead, so that a
 * 422 is about those and a 2xx is common enough to read back; the names of the generated ones.
 */
function fields(list: ReadonlyArray<Field>): fc.Arbitrary<{ values: unknown[]; wide: string[] }> {
  const index = fc.integer({ min: 0, max: list.length - 1 });
  const chosen = fc.oneof(
    { weight: 1, arbitrary: fc.constant<number[]>([]) },
    { weight: 6, arbitrary: index.map((i) => [i]) },
    { weight: 3, arbitrary: fc.tuple(index, index).map(([a, b]) => [a, b]) },
  );
  return chosen.chain((wideAt) =>
    fc.tuple(...list.map((f, i) => (wideAt.includes(i) ? f.wide : f.good))).map((values) => ({
      values,
      wide: [...new Set(wideAt)].map((i) => list[i]!.name),
    })),
  );
}

/** Sets `value` at a dotted path in `target`. */
function setPath(target: Record<string, unknown>, path: string, value: unknown): void {
  const parts = path.split(".");
  let at = target;
  for (const part of parts.slice(0, -1)) at = (at[part] ??= {}) as Record<string, unknown>;
  at[parts.at(-1)!] = value;
}

function build(list: ReadonlyArray<Field>, values: unknown[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  list.forEach((f, i) => setPath(out, f.name, values[i]));
  return out;
}

let counter = 0;
/** A value no other run uses. */
const unique = (prefix: string) => `${prefix}-${process.pid}-${++counter}`;

// ---- CRM mirror ---------------------------------------------------------------------------------

const text = (max: number, good: string): Field["good"] =>
  fc.oneof(fc.constant(good), fc.constant(null), fc.string({ maxLength: Math.min(max, 20) }));
const freeText = (name: string, max: number, good: string): Field => ({
  name,
  good: text(max, good),
  wide: anyValue(max),
});

const realDate = fc
  .date({
    min: new Date("1900-01-01T00:00:00Z"),
    max: new Date("2999-12-31T00:00:00Z"),
    noInvalidDate: true,
  })
  .map((d) => d.toISOString().slice(0, 10));

function accountFields(now: number): Field[] {
  return [
    freeText("name", 255, "Tandartspraktijk Vermeulen"),
    freeText("alias", 255, "TP Vermeulen"),
    freeText("organisation_type", 100, "Groepspraktijk"),
    freeText("language", 10, "nl"),
    freeText("identifiers.vat", 30, "BE0412.345.678"),
    freeText("address.street", 255, "Kortrijksesteenweg 112"),
    freeText("address.postal_code", 12, "9000"),
    freeText("address.city", 100, "Gent"),
    freeText("address.province", 100, "Oost-Vlaanderen"),
    freeText("address.country", 60, "BE"),
    freeText("contact.email", 255, "info@example-praktijk.be"),
    freeText("contact.phone", 40, "09 222 33 44"),
    {
      name: "period.start_date",
      good: fc.option(realDate, { nil: null }),
      wide: fc.oneof({ weight: 4, arbitrary: patternDate }, { weight: 1, arbitrary: anyValue(10) }),
    },
    {
      name: "period.stop_date",
      good: fc.option(realDate, { nil: null }),
      wide: fc.oneof({ weight: 4, arbitrary: patternDate }, { weight: 1, arbitrary: anyValue(10) }),
    },
    {
      name: "modified_on",
      good: fc
        .integer({ min: 1, max: 3 * 365 * 86_400 })
        .map((s) => new Date(now - s * 1000).toISOString()),
      wide: fc.oneof(
        { weight: 4, arbitrary: patternDateTime(now) },
        { weight: 1, arbitrary: anyValue(40) },
      ),
    },
  ];
}

/** A crm_id: a fresh ordinary one, or a generated string (often made unique by a suffix). */
const crmId: Field = {
  name: "crm_id",
  good: fc.constant(null).map(() => unique("acc")),
  wide: fc
    .tuple(anyString(64), fc.boolean())
    .map(([s, suffix]) => (suffix ? `${s}${unique("")}` : s)),
};

/** Paths stay within the request head's limit (the head's own limit is not these properties'). */
const fitsPath = (id: unknown) => encodeSegment(String(id)).length < 6_000;

/**
 * In a path an empty id is another URL (the collection, which has no route), not an empty id.
 */
const crmIdInPath: Field = {
  ...crmId,
  wide: crmId.wide.filter((id) => id !== "" && fitsPath(id)),
};

interface MirrorRow {
  crm_id: string;
  name: string | null;
  alias: string | null;
  organisation_type: string | null;
  language: string | null;
  vat: string | null;
  street: string | null;
  postal_code: string | null;
  city: string | null;
  province: string | null;
  country: string | null;
  email: string | null;
  phone: string | null;
  period_start: string | null;
  period_stop: string | null;
  modified_us: string;
  deleted: boolean;
}

async function mirrorRow(world: World, id: string): Promise<MirrorRow | undefined> {
  const { rows } = await world.practices.pool.query<MirrorRow>(
    `SELECT *, period_start::text AS period_start, period_stop::text AS period_stop,
            (extract(epoch from modified_on) * 1000000)::bigint::text AS modified_us
       FROM practices.crm_accounts WHERE crm_id = $1`,
    [id],
  );
  // The driver would turn an unpaired surrogate in the id into U+FFFD both ways: compare here.
  return rows.find((r) => r.crm_id === id);
}

/** Ids written in this run: a write to one of them may be superseded by an earlier newer one. */
const writtenIds = new Set<string>();

async function expectMirrored(
  world: World,
  id: string,
  account: Record<string, unknown> | null,
  modifiedOn: string,
  result: { crm_id?: string; applied?: boolean; outcome?: string } | undefined,
): Promise<void> {
  expect(result?.crm_id, "the answer names the id as sent").toBe(id);
  const seen = writtenIds.has(id);
  writtenIds.add(id);
  // A replay (fast-check replays a failing run while shrinking) finds its own version stored.
  if (!result?.applied && result?.outcome !== "duplicate") {
    expect(seen, "a write to a new id is applied").toBe(true);
    return;
  }
  const row = await mirrorRow(world, id);
  expect(row, "the account is stored under the id as sent").toBeDefined();
  const a = account as {
    [k: string]: unknown;
    identifiers: Record<string, unknown>;
    address: Record<string, unknown>;
    contact: Record<string, unknown>;
    period: Record<string, unknown>;
  } | null;
  expect({ ...row, crm_id: undefined }).toEqual({
    crm_id: undefined,
    name: a ? a.name : null,
    alias: a ? a.alias : null,
    organisation_type: a ? a.organisation_type : null,
    language: a ? a.language : null,
    vat: a ? a.identifiers.vat : null,
    street: a ? a.address.street : null,
    postal_code: a ? a.address.postal_code : null,
    city: a ? a.address.city : null,
    province: a ? a.address.province : null,
    country: a ? a.address.country : null,
    email: a ? a.contact.email : null,
    phone: a ? a.contact.phone : null,
    period_start: a ? a.period.start_date : null,
    period_stop: a ? a.period.stop_date : null,
    modified_us: String(microsOf(modifiedOn)),
    modified_on: expect.anything(),
    received_at: expect.anything(),
    deleted: a === null,
  });
}

const putAccount: WriteOperation = {
  name: "PUT /v1/crm-mirror/accounts/{crm_id}",
  target: "practices",
  generate: (world) => {
    const list = [crmIdInPath, ...accountFields(world.now)];
    return fields(list).map(({ values, wide }) => async () => {
      const [id, ...rest] = values;
      const body = build(list.slice(1), rest);
      return {
        request: {
          method: "PUT",
          path: `/v1/crm-mirror/accounts/${encodeSegment(String(id))}`,
          body,
        },
        wide,
        sent: { id, body },
        client: "crm-mirror",
      };
    });
  },
  async readBack(world, { sent }, answer) {
    const body = sent.body as Record<string, unknown>;
    await expectMirrored(
      world,
      String(sent.id),
      body,
      String(body.modified_on),
      answer.body.data as never,
    );
  },
  otherStatuses: BODY_LIMIT,
};

const bulkAccounts: WriteOperation = {
  name: "POST /v1/crm-mirror/accounts:bulk",
  target: "practices",
  generate: (world) => {
    const list = [crmId, ...accountFields(world.now)];
    return fc.array(fields(list), { minLength: 1, maxLength: 3 }).map((records) => async () => {
      const accounts = records.map(({ values }) => ({
        crm_id: values[0],
        ...build(list.slice(1), values.slice(1)),
      }));
      return {
        request: { method: "POST", path: "/v1/crm-mirror/accounts:bulk", body: { accounts } },
        wide: records.flatMap(({ wide }, i) => wide.map((w) => `accounts[${i}].${w}`)),
        sent: { accounts },
        client: "crm-mirror",
      };
    });
  },
  async readBack(world, { sent }, answer) {
    const accounts = sent.accounts as Array<Record<string, unknown>>;
    const results = (answer.body.data as { results: Array<{ crm_id: string; applied: boolean }> })
      .results;
    // A later record of the same request wins over an earlier one with the same id.
    const last = new Map(accounts.map((a, i) => [a.crm_id, i]));
    for (const [i, account] of accounts.entries()) {
      if (last.get(account.crm_id) !== i) continue;
      const { crm_id: id, ...body } = account;
      await expectMirrored(world, String(id), body, String(body.modified_on), results[i]);
    }
  },
  otherStatuses: BODY_LIMIT,
};

const deleteAccount: WriteOperation = {
  name: "DELETE /v1/crm-mirror/accounts/{crm_id}",
  target: "practices",
  generate: (world) => {
    const header: Field = {
      name: "CRM-Modified-On",
      good: accountFields(world.now).at(-1)!.good,
      // A header carries Latin-1 only: date-times and ASCII text.
      wide: fc.oneof(
        { weight: 4, arbitrary: patternDateTime(world.now) },
        {
          weight: 1,
          arbitrary: fc.string({
            unit: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)),
            maxLength: 40,
          }),
        },
      ),
    };
    return fields([crmIdInPath, header]).map(({ values: [id, modifiedOn], wide }) => async () => {
      const value = String(modifiedOn);
      return {
        request: {
          method: "DELETE",
          path: `/v1/crm-mirror/accounts/${encodeSegment(String(id))}`,
          headers: { "CRM-Modified-On": value },
        },
        wide,
        sent: { id, modifiedOn: value.trim() },
        client: "crm-mirror",
      };
    });
  },
  async readBack(world, { sent }, answer) {
    await expectMirrored(
      world,
      String(sent.id),
      null,
      String(sent.modifiedOn),
      answer.body.data as never,
    );
  },
};

// ---- Applications -------------------------------------------------------------------------------

const createApplication: WriteOperation = {
  name: "POST /v1/applications",
  target: "identity",
  generate: (world) => {
    const list: Field[] = [
      { name: "practice_id", good: fc.constantFrom(null, "practice-17"), wide: anyValue(100) },
      {
        name: "candidate.email",
        good: fc.constant(null).map(() => `${unique("kandidaat")}@voorbeeld.be`),
        wide: anyValue(320),
      },
      { name: "candidate.phone", good: fc.constant(null), wide: anyValue(64) },
      { name: "consent", good: fc.boolean(), wide: anyValue(10) },
      {
        name: "entrypoint",
        good: fc.constantFrom(null, "website", "linkedin"),
        wide: anyValue(200),
      },
    ];
    const vacancy: Field = {
      name: "vacancy_uuid",
      good: fc.constant("fresh"),
      wide: fc.oneof(
        anyValue(36),
        fc.uuid().map((u) => u.toUpperCase()),
      ),
    };
    return fields([vacancy, ...list]).map(({ values: [v, ...rest], wide }) => async () => {
      const vacancyUuid = v === "fresh" ? world.identity.newVacancy("practice-of-vacancy") : v;
      const body = { vacancy_uuid: vacancyUuid, ...build(list, rest) };
      return {
        request: { method: "POST", path: "/v1/applications", body },
        wide,
        sent: body,
        client: "property-client",
      };
    });
  },
  async readBack(world, { sent }, answer) {
    const created = answer.body.data as { application_uuid: string; application_created: boolean };
    expect(created.application_created, "a fresh vacancy has no application yet").toBe(true);
    const stored = await world.send("identity", {
      method: "GET",
      path: `/v1/applications/${created.application_uuid}`,
    });
    expect(stored.status).toBe(200);
    expect(stored.body.data).toMatchObject({
      vacancy_uuid: String(sent.vacancy_uuid).toLowerCase(),
      practice_id: sent.practice_id ?? "practice-of-vacancy",
      consent_flag: sent.consent,
      entrypoint_raw: sent.entrypoint ?? null,
    });
  },
  otherStatuses: BODY_LIMIT,
};

const submitApplication: WriteOperation = {
  name: "POST /v1/applications/{application_uuid}/submission",
  target: "identity",
  generate: (world) => {
    const id: Field = {
      name: "application_uuid",
      good: fc.constant("existing"),
      wide: fc.oneof(anyString(36).filter(fitsPath), fc.uuid({ version: 4 })),
    };
    const body: Field = {
      name: "body",
      good: fc.constantFrom(undefined, {}),
      // Small: the body limit is not what this property is about.
      wide: fc
        .oneof(anyValue(8), fc.dictionary(anyString(8), anyValue(8), { minKeys: 1, maxKeys: 2 }))
        .filter((v) => JSON.stringify(v).length < 4_000),
    };
    return fields([id, body]).map(({ values: [uuid, payload], wide }) => async () => {
      let target = uuid;
      if (uuid === "existing") {
        const made = await world.send("identity", {
          method: "POST",
          path: "/v1/applications",
          body: {
            vacancy_uuid: world.identity.newVacancy(),
            candidate: { email: `${unique("ingediend")}@voorbeeld.be` },
            consent: true,
          },
        });
        target = (made.body.data as { application_uuid: string }).application_uuid;
      }
      return {
        request: {
          method: "POST",
          path: `/v1/applications/${encodeSegment(String(target))}/submission`,
          ...(payload !== undefined && { body: payload }),
        },
        wide,
        sent: { uuid: target },
        client: "property-client",
      };
    });
  },
  async readBack(world, { sent }, answer) {
    const submitted = answer.body.data as { submitted_at: string };
    const stored = await world.send("identity", {
      method: "GET",
      path: `/v1/applications/${String(sent.uuid).toLowerCase()}`,
    });
    expect(stored.body.data).toMatchObject({ updated_at: submitted.submitted_at });
  },
  otherStatuses: {
    404: "a UUID no application has",
  },
};

// ---- Webhook subscriptions ----------------------------------------------------------------------

const EVENT_TYPES = [
  "vacancy.created",
  "vacancy.updated",
  "practice.updated",
  "application.created",
];

const webhookUrl: Field = {
  name: "url",
  good: fc.constant(null).map(() => `https://hooks.example.com/${unique("endpoint")}`),
  wide: fc.oneof(
    anyString(2_048).map((path) => `https://hooks.example.com/${path}`),
    anyString(60).map((host) => `https://${host}/hook`),
    anyValue(2_048),
  ),
};
const eventTypes: Field = {
  name: "event_types",
  good: fc.subarray(EVENT_TYPES, { minLength: 1 }),
  wide: fc.oneof(fc.array(anyValue(40), { maxLength: 3 }), anyValue(40)),
};

async function expectSubscription(
  world: World,
  client: string,
  uuid: string,
  sent: Record<string, unknown>,
): Promise<void> {
  const stored = await world.send(
    "webhooks",
    { method: "GET", path: `/v1/webhooks/${uuid}` },
    client,
  );
  expect(stored.status).toBe(200);
  const data = stored.body.data as Record<string, unknown>;
  // The URL is stored as the URL parser writes it (documented: normalised), and nothing else.
  if (sent.url !== undefined) expect(data.url).toBe(new URL(String(sent.url)).href);
  if (sent.event_types !== undefined)
    expect(data.event_types).toEqual([...new Set(sent.event_types as string[])]);
  if (sent.enabled !== undefined) expect(data.enabled).toBe(sent.enabled);
}

const createWebhook: WriteOperation = {
  name: "POST /v1/webhooks",
  target: "webhooks",
  generate: () =>
    fields([webhookUrl, eventTypes]).map(({ values: [url, types], wide }) => async () => ({
      request: { method: "POST", path: "/v1/webhooks", body: { url, event_types: types } },
      wide,
      sent: { url, event_types: types },
      client: unique("subscriber"),
    })),
  async readBack(world, { sent, client }, answer) {
    const uuid = (answer.body.data as { webhook_uuid: string }).webhook_uuid;
    await expectSubscription(world, client, uuid, sent);
  },
  otherStatuses: BODY_LIMIT,
};

/** A subscription of a fresh client, for the operations on one. */
async function subscriptionOf(world: World, client: string): Promise<string> {
  const made = await world.send(
    "webhooks",
    {
      method: "POST",
      path: "/v1/webhooks",
      body: {
        url: `https://hooks.example.com/${unique("base")}`,
        event_types: ["vacancy.created"],
      },
    },
    client,
  );
  if (made.status !== 201) throw new Error(`creating a subscription answered ${made.status}`);
  return (made.body.data as { webhook_uuid: string }).webhook_uuid;
}

const updateWebhook: WriteOperation = {
  name: "PATCH /v1/webhooks/{webhook_uuid}",
  target: "webhooks",
  generate: (world) => {
    const enabled: Field = { name: "enabled", good: fc.boolean(), wide: anyValue(10) };
    return fields([webhookUrl, eventTypes, enabled]).map(({ values, wide }) => async () => {
      const client = unique("subscriber");
      const uuid = await subscriptionOf(world, client);
      const body = { url: values[0], event_types: values[1], enabled: values[2] };
      return {
        request: { method: "PATCH", path: `/v1/webhooks/${uuid}`, body },
        wide,
        sent: { uuid, ...body },
        client,
      };
    });
  },
  async readBack(world, { sent, client }) {
    await expectSubscription(world, client, String(sent.uuid), sent);
  },
  otherStatuses: BODY_LIMIT,
};

const recoverDeliveries: WriteOperation = {
  name: "POST /v1/webhooks/{webhook_uuid}/recover",
  target: "webhooks",
  generate: (world) => {
    const instant = (offsetS: number) =>
      fc.constant(new Date(world.now - offsetS * 1000).toISOString());
    const list: Field[] = [
      {
        name: "since",
        good: instant(3_600),
        wide: fc.oneof(
          { weight: 4, arbitrary: patternDateTime(world.now) },
          { weight: 1, arbitrary: anyValue(40) },
        ),
      },
      {
        name: "until",
        good: instant(60),
        wide: fc.oneof(
          { weight: 4, arbitrary: patternDateTime(world.now) },
          { weight: 1, arbitrary: anyValue(40) },
        ),
      },
    ];
    return fields(list).map(({ values, wide }) => async () => {
      const client = unique("subscriber");
      const uuid = await subscriptionOf(world, client);
      const body = build(list, values);
      return {
        request: { method: "POST", path: `/v1/webhooks/${uuid}/recover`, body },
        wide,
        sent: { uuid, ...body },
        client,
      };
    });
  },
  together: [["since", "until"]],
  async readBack(_world, { sent }, answer) {
    // Nothing is stored but deliveries made pending again (none here): the window is answered as
    // sent, as instants.
    const data = answer.body.data as { since: string; until: string; queued: number };
    expect(Date.parse(data.since)).toBe(Date.parse(String(sent.since)));
    expect(Date.parse(data.until)).toBe(Date.parse(String(sent.until)));
    expect(data.queued).toBe(0);
  },
};

const createPortalSession: WriteOperation = {
  name: "POST /v1/webhooks/portal-sessions",
  target: "webhooks",
  generate: () => {
    const list: Field[] = [
      { name: "subscription_ids", good: fc.constant(undefined), wide: anyValue(60) },
      { name: "read_only", good: fc.boolean(), wide: anyValue(10) },
      {
        name: "ttl_seconds",
        good: fc.integer({ min: 60, max: 3_600 }),
        wide: fc.oneof(fc.integer(), fc.double(), anyValue(20)),
      },
    ];
    return fields(list).map(({ values, wide }) => async () => {
      const body = build(list, values);
      return {
        request: { method: "POST", path: "/v1/webhooks/portal-sessions", body },
        wide,
        sent: body,
        client: unique("portal-client"),
      };
    });
  },
  async readBack(world, { sent, client }, answer) {
    const made = answer.body.data as { id: string };
    const listed = await world.send(
      "webhooks",
      { method: "GET", path: "/v1/webhooks/portal-sessions" },
      client,
    );
    expect(listed.status).toBe(200);
    const stored = (listed.body.data as Array<Record<string, unknown>>).find(
      (s) => s.id === made.id,
    );
    expect(stored).toBeDefined();
    expect(stored!.read_only).toBe(sent.read_only ?? false);
    expect(stored!.subscription_ids).toBeNull();
    const lifetime =
      Date.parse(String(stored!.expires_at)) - Date.parse(String(stored!.created_at));
    expect(lifetime).toBe(((sent.ttl_seconds as number | undefined) ?? 3_600) * 1000);
  },
};

/** Every write operation of every service. */
export const WRITE_OPERATIONS: ReadonlyArray<WriteOperation> = [
  putAccount,
  bulkAccounts,
  deleteAccount,
  createApplication,
  submitApplication,
  createWebhook,
  updateWebhook,
  recoverDeliveries,
  createPortalSession,
];
