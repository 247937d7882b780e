// The SubscriptionPort the WebhookSubscription reconciler calls, over the real domain module and
// PostgreSQL.
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type pg from "pg";
import { InvalidSubscriptionError, type SubscriptionRef } from "../src/workers/operator/port.ts";
import { createPgPool, runMigrations } from "@svc/db";
import { createTempPgDatabase, silentLogger, type TempDatabase } from "@svc/testing";
import { MIGRATIONS_FOLDER } from "../src/store/migrations.ts";
import { systemClock } from "../src/domain/model.ts";
import { createSubscriptionPort } from "../src/compose.ts";
import type { ServiceSubscriptionPort } from "../src/workers/operator/subscription-port.ts";
import { createSecretBox } from "../src/store/secret-box.ts";
import { fakeResolver, PUBLIC_BASE_URL, SECRET_KEY } from "./support/harness.ts";

let database: TempDatabase;
let pool: pg.Pool;
let port: ServiceSubscriptionPort;
const OWNER = "ats-connector";
const spec = {
  url: "https://hooks.example.com/in",
  eventTypes: ["vacancy.created"],
  enabled: true,
};
const ref = (): SubscriptionRef => ({
  namespace: "apps",
  name: `hook-${randomUUID().slice(0, 8)}`,
  uid: randomUUID(),
});

beforeAll(async () => {
  database = await createTempPgDatabase("whop");
  pool = createPgPool({
    url: database.url,
    schema: "webhooks",
    applicationName: "webhooks-operator-test",
    max: 5,
  });
  await runMigrations(pool, { schema: "webhooks", migrationsFolder: MIGRATIONS_FOLDER });
  port = createSubscriptionPort({
    config: {
      ENVIRONMENT: "sandbox",
      PUBLIC_BASE_URL,
      WEBHOOK_DNS_TIMEOUT_MS: 2_000,
      WEBHOOK_ALLOW_LOOPBACK: false,
      WEBHOOK_SECRET_KEY: { base64: SECRET_KEY, isDevelopmentKey: false },
      WEBHOOK_SECRET_ROTATION_OVERLAP_MS: 60_000,
      WEBHOOK_RETENTION_DAYS: 30,
    },
    pool,
    queue: { enqueue: async () => {} }, // the port never queues (no ping or redelivery)
    resolver: fakeResolver({
      "hooks.example.com": ["93.184.216.34"],
      "private.example.com": ["10.0.0.5"],
    }),
    clock: systemClock,
    logger: silentLogger(),
  });
});
afterAll(async () => {
  await pool?.end();
  await database?.drop();
});

async function rowsFor(uid: string) {
  const { rows } = await pool.query<{
    id: string;
    owner_client_id: string;
    url: string;
    event_types: string[];
    enabled: boolean;
    secret_sealed: string;
  }>(
    "SELECT id, owner_client_id, url, event_types, enabled, secret_sealed FROM webhooks.subscriptions WHERE k8s_uid = $1",
    [uid],
  );
  return rows;
}

describe("ServiceSubscriptionPort", () => {
  it("creates one subscription per resource uid and returns its secret only on creation", async () => {
    const r = ref();
    const first = await port.ensure(r, OWNER, spec, { needSecret: false });
    expect(first.secret).toMatch(/^whsec_/);
    const again = await port.ensure(r, OWNER, spec, { needSecret: false });
    expect(again).toEqual({ subscriptionId: first.subscriptionId });
    const rows = await rowsFor(r.uid);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      id: first.subscriptionId,
      owner_client_id: OWNER,
      url: spec.url,
      event_types: spec.eventTypes,
      enabled: true,
    });
    // The returned secret is the one stored (sealed) for this subscription.
    expect(createSecretBox(SECRET_KEY).open(rows[0]!.secret_sealed, first.subscriptionId)).toBe(
      first.secret,
    );
  });

  it("creates a paused subscription when the spec says disabled", async () => {
    const r = ref();
    await port.ensure(r, OWNER, { ...spec, enabled: false }, { needSecret: false });
    expect((await rowsFor(r.uid))[0]?.enabled).toBe(false);
  });

  it("keeps an automatic disabling through resyncs; enabled false then true enables it again", async () => {
    const r = ref();
    const { subscriptionId } = await port.ensure(r, OWNER, spec, { needSecret: false });
    // What the dispatcher's auto-disable check writes.
    await pool.query(
      "UPDATE webhooks.subscriptions SET enabled = false, disabled_reason = 'endpoint_failing', disabled_at = now() WHERE id = $1",
      [subscriptionId],
    );
    const state = async () =>
      (
        await pool.query(
          "SELECT enabled, disabled_reason FROM webhooks.subscriptions WHERE id = $1",
          [subscriptionId],
        )
      ).rows[0];
    await port.ensure(r, OWNER, spec, { needSecret: false });
    expect(await state()).toEqual({ enabled: false, disabled_reason: "endpoint_failing" });
    await port.ensure(r, OWNER, { ...spec, enabled: false }, { needSecret: false });
    expect(await state()).toEqual({ enabled: false, disabled_reason: "requested" });
    await port.ensure(r, OWNER, spec, { needSecret: false });
    expect(await state()).toEqual({ enabled: true, disabled_reason: null });
  });

  it("updates url, event types and enabled to the spec", async () => {
    const r = ref();
    const { subscriptionId } = await port.ensure(r, OWNER, spec, { needSecret: false });
    const result = await port.ensure(
      r,
      OWNER,
      {
        url: "https://HOOKS.example.com/other",
        eventTypes: ["vacancy.updated", "practice.updated"],
        enabled: false,
      },
      { needSecret: false },
    );
    expect(result).toEqual({ subscriptionId });
    expect((await rowsFor(r.uid))[0]).toMatchObject({
      url: "https://hooks.example.com/other",
      event_types: ["vacancy.updated", "practice.updated"],
      enabled: false,
    });
  });

  it("rotates the secret when needSecret", async () => {
    const r = ref();
    const created = await port.ensure(r, OWNER, spec, { needSecret: false });
    const rotated = await port.ensure(r, OWNER, spec, { needSecret: true });
    expect(rotated.subscriptionId).toBe(created.subscriptionId);
    expect(rotated.secret).toMatch(/^whsec_/);
    expect(rotated.secret).not.toBe(created.secret);
    const [row] = await rowsFor(r.uid);
    expect(createSecretBox(SECRET_KEY).open(row!.secret_sealed, created.subscriptionId)).toBe(
      rotated.secret,
    );
  });

  it("refuses a private or non-https URL as InvalidURL and creates nothing", async () => {
    for (const url of [
      "https://private.example.com/in",
      "http://hooks.example.com/in",
      "not a url",
    ]) {
      const r = ref();
      const err = await port
        .ensure(r, OWNER, { ...spec, url }, { needSecret: false })
        .catch((e: unknown) => e);
      expect(err, url).toBeInstanceOf(InvalidSubscriptionError);
      expect((err as InvalidSubscriptionError).reason, url).toBe("InvalidURL");
      expect(await rowsFor(r.uid)).toHaveLength(0);
    }
  });

  it("refuses an event type outside the catalogue as InvalidEventType", async () => {
    // application.submitted is not in the sandbox catalogue (README).
    const err = await port
      .ensure(
        ref(),
        OWNER,
        { ...spec, eventTypes: ["application.submitted"] },
        { needSecret: false },
      )
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(InvalidSubscriptionError);
    expect((err as InvalidSubscriptionError).reason).toBe("InvalidEventType");
  });

  it("refuses an empty client id as UnknownClient (any other id is accepted: no client registry here)", async () => {
    const err = await port.ensure(ref(), "", spec, { needSecret: false }).catch((e: unknown) => e);
    expect((err as InvalidSubscriptionError).reason).toBe("UnknownClient");
  });

  it("moves the subscription to a new client id by replacing it", async () => {
    const r = ref();
    const first = await port.ensure(r, OWNER, spec, { needSecret: false });
    const moved = await port.ensure(r, "crm-connector", spec, { needSecret: false });
    expect(moved.subscriptionId).not.toBe(first.subscriptionId);
    expect(moved.secret).toMatch(/^whsec_/);
    expect((await rowsFor(r.uid)).map((row) => row.owner_client_id)).toEqual(["crm-connector"]);
  });

  it("removes the subscription, and succeeds when it is already gone", async () => {
    const r = ref();
    const { subscriptionId } = await port.ensure(r, OWNER, spec, { needSecret: false });
    await port.remove(subscriptionId);
    expect(await rowsFor(r.uid)).toHaveLength(0);
    await expect(port.remove(subscriptionId)).resolves.toBeUndefined();
  });
});
