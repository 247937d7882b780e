/**
 * The rules the services enforce that JSON Schema can state are in the document's schemas, and
 * the two agree: the boundary values of each rule (white space of every kind around "blank", the
 * length limits, a candidate without an email and a phone, the subscription URL's scheme and
 * characters, the CRM mirror's `crm_id`, a practice_id, the events feed's `type` per environment)
 * go to the document's schema (the contract tests' validator) and to the services' own validation
 * of the same input, and both accept or both refuse. Rules JSON Schema cannot state are described
 * in text: a URL's host being public, and the recovery window relative to the time of the call,
 * whose boundary this file proves against the service's check.
 */
import { describe, expect, it } from "vitest";
import { DomainError } from "@svc/errors";
import { EVENT_TYPES } from "@svc/events";
import { parseQuery } from "@svc/http";
import { readOpenApiDocument } from "@svc/openapi";
import { ContractValidator, contractValidator } from "@svc/testing";
import { parseApplicationBody } from "../../services/identity/src/http/application-body.ts";
import { parseBulk, parseCrmId } from "../../services/practices/src/http/crm-mirror-validation.ts";
import { createBody, parseBody, recoverBody } from "../../services/webhooks/src/http/bodies.ts";
import { CRM_ACCOUNT } from "./crm-account.ts";
import { practiceIdParam } from "../../services/practices/src/http/router.ts";
import { EventFeed } from "../../services/webhooks/src/domain/event-feed.ts";
import { recoveryWindow } from "../../services/webhooks/src/domain/subscription-service.ts";
import { listEventsOperation } from "../../services/webhooks/src/http/events-operations.ts";
import {
  BlockedUrlError,
  parseSubscriptionUrl,
} from "../../services/webhooks/src/domain/url-policy.ts";

/** The document's verdict on a value of one of its schemas (production's). */
const schema = (name: string) => (value: unknown) => contractValidator().schemaAccepts(name, value);

/** The service's verdict: accepted, or the fields its 422 names. */
function verdict(parse: () => unknown): true | string[] {
  try {
    parse();
    return true;
  } catch (err) {
    if (err instanceof DomainError && err.status === 422)
      return (err.details ?? []).map((d) => d.field);
    throw err;
  }
}

/** Every kind of white space JavaScript's `trim` and JSON Schema's `\s` know, and none. */
const BLANKS = ["", " ", "\t", "\n", "\r", "\v", "\f", "\u00a0", "\u2003", "\u3000", "\ufeff"];
const blanks = BLANKS.flatMap((w) => [w, `${w}${w}`]);
const nonBlanks = BLANKS.flatMap((w) => [`${w}x${w}`, `x${w}`]).concat(["x"]);

describe("POST /v1/applications (ApplicationRequest)", () => {
  const accepts = schema("ApplicationRequest");
  const base = {
    vacancy_uuid: "3f2b8c1e-7d4a-4e2b-9c51-0a6d2e8f4b17",
    candidate: { email: "a@example.be" },
    consent: true,
  };
  const check = (body: Record<string, unknown>, field: string) => {
    const server = verdict(() => parseApplicationBody(body));
    const label = JSON.stringify(body);
    expect(accepts(body), label).toBe(server === true);
    if (server !== true) expect(server, label).toContain(field);
  };

  it("practice_id, email and phone: blank is refused by both, anything else accepted by both", () => {
    for (const value of [...blanks, ...nonBlanks]) {
      check({ ...base, practice_id: value }, "practice_id");
      check({ ...base, candidate: { email: value } }, "candidate.email");
      check({ ...base, candidate: { phone: value } }, "candidate.phone");
    }
  });

  it("the length limits: at the limit accepted by both, one more refused by both", () => {
    for (const [field, max] of [
      ["practice_id", 100],
      ["entrypoint", 200],
    ] as const) {
      check({ ...base, [field]: "x".repeat(max) }, field);
      check({ ...base, [field]: "x".repeat(max + 1) }, field);
    }
    check({ ...base, candidate: { email: "x".repeat(320) } }, "candidate.email");
    check({ ...base, candidate: { email: "x".repeat(321) } }, "candidate.email");
    check({ ...base, candidate: { phone: "1".repeat(64) } }, "candidate.phone");
    check({ ...base, candidate: { phone: "1".repeat(65) } }, "candidate.phone");
  });

  it("a candidate needs an email or a phone: both agree on every combination", () => {
    const values = [undefined, null, "a@example.be"];
    const phones = [undefined, null, "+32470123456"];
    for (const email of values)
      for (const phone of phones) {
        const candidate = {
          ...(email === undefined ? {} : { email }),
          ...(phone === undefined ? {} : { phone }),
        };
        check({ ...base, candidate }, "candidate");
      }
  });
});

describe("POST /v1/webhooks (WebhookCreate) url", () => {
  const accepts = schema("WebhookCreate");
  const server = (url: string) =>
    verdict(() => {
      parseBody(createBody, { url, event_types: ["vacancy.created"] });
      // What the service checks before any name or address rule: syntax and scheme (a refusal is
      // its 422 on `url`).
      try {
        parseSubscriptionUrl(url, false);
      } catch (err) {
        if (err instanceof BlockedUrlError)
          throw new DomainError(422, "VALIDATION_ERROR", err.message, {
            details: [{ field: "url", message: err.message }],
          });
        throw err;
      }
    });

  it("scheme, white space and control characters: both agree", () => {
    const values = [
      "https://hooks.example.com/in",
      "HTTPS://hooks.example.com/in",
      "http://hooks.example.com/in",
      "ftp://hooks.example.com/in",
      "hooks.example.com/in",
      "https://",
      "",
      "https://hooks.example.com/a b",
      " https://hooks.example.com/in",
      "https://hooks.example.com/in\t",
      "https://hooks.example.com/\u0000",
      "https://hooks.example.com/\u007f",
      "https://hooks.example.com/\u0085",
      "https://hooks.example.com/\u009f",
      "https://hooks.example.com/\u00a0é",
      `https://hooks.example.com/${"a".repeat(2_048 - 26)}`,
      `https://hooks.example.com/${"a".repeat(2_048 - 25)}`,
    ];
    for (const url of values) {
      const verdictOfServer = server(url);
      expect(accepts({ url, event_types: ["vacancy.created"] }), JSON.stringify(url)).toBe(
        verdictOfServer === true,
      );
    }
  });
});

describe("CRM mirror crm_id (path parameter and bulk record)", () => {
  const NOW = Date.parse("2025-06-15T10:00:00Z");
  const path = "/v1/crm-mirror/accounts/{crm_id}";
  const edges = BLANKS.flatMap((w) => [w, `${w}x`, `x${w}`, `a${w}b`]);
  const values = [
    ...new Set([
      ...edges,
      ...[..."\u0000\u001f\u007f\u0085\u009f\u180e\u200b\u2028\u2029\u202f"].flatMap((c) => [
        `${c}x`,
        `x${c}`,
        `a${c}b`,
      ]),
      "\ud800",
      "x\udfff",
      "\u{1f600}",
      "x".repeat(64),
      "x".repeat(65),
      ` ${"x".repeat(63)}`,
    ]),
  ];

  it("no control characters, no surrounding white space, 1 to 64 characters: both agree", () => {
    for (const id of values) {
      const label = JSON.stringify(id);
      const server = verdict(() => parseCrmId(id));
      for (const method of ["get", "put", "delete"])
        expect(contractValidator().parameterAccepts(method, path, "crm_id", id), label).toBe(
          server === true,
        );
      const bulk = { accounts: [{ ...CRM_ACCOUNT, crm_id: id }] };
      const inBulk = verdict(() => parseBulk(bulk, NOW));
      expect(schema("CrmAccountsBulk")(bulk), label).toBe(inBulk === true);
      const fields = inBulk === true ? true : [...new Set(inBulk)];
      expect(fields, label).toEqual(server === true ? true : ["accounts[0].crm_id"]);
    }
  });

  it("the values cover both verdicts of each rule", () => {
    const accepted = values.filter((id) => verdict(() => parseCrmId(id)) === true);
    expect(accepted).toEqual(
      expect.arrayContaining(["a b", "x\u200b", "\u{1f600}", "x".repeat(64)]),
    );
    for (const refused of [" x", "x\ufeff", "x\u2028", "\u0085x", "x".repeat(65), ""])
      expect(accepted).not.toContain(refused);
  });
});

describe("GET /v1/practices/{practice_id}", () => {
  it("1 to 255 characters (code points), no control characters: both agree", () => {
    const values = [
      "",
      "ACC/2009/117",
      " x ",
      "x".repeat(255),
      "x".repeat(256),
      "\u{1f600}".repeat(255),
      "\u{1f600}".repeat(256),
      ...[..."\u0000\u0009\u001f\u007f\u0085\u009f\u00a0\u2028"].map((c) => `a${c}b`),
      "\ud800",
    ];
    for (const id of values) {
      const server = verdict(() => practiceIdParam(id));
      const label = JSON.stringify(id);
      expect(
        contractValidator().parameterAccepts(
          "get",
          "/v1/practices/{practice_id}",
          "practice_id",
          id,
        ),
        label,
      ).toBe(server === true);
      if (server !== true) expect(server, label).toContain("practice_id");
    }
  });
});

describe.each(["production", "sandbox"] as const)("GET /v1/events type (%s)", (environment) => {
  const document = new ContractValidator(readOpenApiDocument(environment));
  // `style: form, explode: false`: the array's items are the value's comma-separated parts.
  const documentAccepts = (value: string) =>
    document.parameterAccepts("get", "/v1/events", "type", value.split(","));
  const feed = new EventFeed({
    store: null as never,
    subscriptions: null as never,
    clock: { now: () => new Date() },
    environment,
    retentionDays: 30,
  });
  // What the route does with the query: parseQuery, then the environment's feed types.
  const server = (value: string) =>
    verdict(() => feed.parseTypes(parseQuery(listEventsOperation.query, { type: value }).type));

  it("every catalogue type, alone and with others: both agree, and differ by environment", () => {
    const values = [
      ...EVENT_TYPES,
      "vacancy.created,practice.deleted",
      "vacancy.created,vacancy.created",
      "application.created,application.submitted",
      "",
      ",",
      "vacancy.created,",
      ",vacancy.created",
      "vacancy.created, practice.deleted",
      " vacancy.created",
      "vacancy.created ",
      "VACANCY.CREATED",
      "vacancy",
      "vacancy.*",
      "nope",
      `vacancy.created${",vacancy.updated".repeat(200)}`,
    ];
    for (const value of values) {
      const answer = server(value);
      expect(documentAccepts(value), `${environment} ${JSON.stringify(value)}`).toBe(
        answer === true,
      );
      if (answer !== true) expect(answer).toEqual(["type"]);
    }
    expect(server("application.submitted") === true).toBe(environment === "production");
    expect(server("system.ping")).toEqual(["type"]);
  });
});

describe("POST /v1/webhooks/{webhook_uuid}/recover window (relative to the call)", () => {
  const NOW = new Date("2026-06-15T10:00:00.000Z");
  const DAYS_30 = 30 * 86_400_000;
  const at = (ms: number) => new Date(NOW.getTime() + ms).toISOString();
  /** The service's verdict on a body at NOW: its parse, then the window's check. */
  const server = (body: Record<string, string>, retentionMs = DAYS_30) =>
    verdict(() => recoveryWindow(parseBody(recoverBody, body), NOW, retentionMs));

  it("the document states the rule in words, and its schema accepts every instant", () => {
    const operation = readOpenApiDocument("production").paths["/v1/webhooks/{webhook_uuid}/recover"]
      ?.post as { description: string };
    expect(operation.description).toContain(
      "`since` at or after that time minus the retention period (`WEBHOOK_RETENTION_DAYS`, 30 days",
    );
    for (const since of [at(-DAYS_30 - 1), at(-DAYS_30), at(0), at(1)])
      expect(schema("WebhookRecover")({ since }), since).toBe(true);
  });

  it("since: the retention period's start accepted, a millisecond before refused", () => {
    expect(server({ since: at(-DAYS_30) })).toBe(true);
    expect(server({ since: at(-DAYS_30 - 1) })).toEqual(["since"]);
    expect(server({ since: at(-DAYS_30 - 1) }, 0)).toBe(true);
    expect(server({ since: at(-7 * 86_400_000 - 1) }, 7 * 86_400_000)).toEqual(["since"]);
  });

  it("without until, since before the time of the call; with it, until after since", () => {
    expect(server({ since: at(-1) })).toBe(true);
    expect(server({ since: at(0) })).toEqual(["since"]);
    expect(server({ since: at(-1), until: at(0) })).toBe(true);
    expect(server({ since: at(-1), until: at(-1) })).toEqual(["until"]);
    // A future end is allowed: the window only has to start within the retention period.
    expect(server({ since: at(0), until: at(1) })).toBe(true);
  });
});

describe("event types of a subscription", () => {
  it("each environment's document enumerates exactly its catalogue", async () => {
    const { eventTypesFor } = await import("@svc/events");
    for (const environment of ["production", "sandbox"] as const) {
      const doc = readOpenApiDocument(environment);
      const create = doc.components.schemas.WebhookCreate as {
        properties: { event_types: { items: { enum: string[] } } };
      };
      expect(create.properties.event_types.items.enum).toEqual([...eventTypesFor(environment)]);
    }
  });
});
