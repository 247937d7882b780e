/**
 * The subscriber portal end to end, in Chromium (playwright-core) on a whole private stack: a
 * portal link made through the API is opened, a subscription to a local HTTPS receiver is created
 * on the page, a test ping arrives and appears in the log, the receiver fails and the retries
 * appear, the dead delivery is redelivered, the secret is rotated and the receiver verifies both
 * signatures with @integration-service/webhooks, and the revoked link's page refuses. Each step
 * is screenshotted under test-results/portal/ and checked with axe-core.
 */
import { mkdirSync } from "node:fs";
import { createServer, type Server } from "node:https";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Browser, Page } from "playwright-core";
import { createTestCa, waitFor, type TestCa } from "@svc/testing";
import { startPrivateStack, type PrivateStack } from "../support/private-stack.ts";
import { verify } from "../../packages/webhooks/src/index.ts";
import {
  launchChromium,
  seriousViolations,
  watchPage,
} from "../../packages/portal/test/support/browser.ts";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const SCREENSHOTS = join(ROOT, "test-results/portal");
const HOOK_PATH = "/portal-hooks";

interface Received {
  rawBody: Buffer;
  headers: Record<string, string | string[] | undefined>;
}

/** A loopback HTTPS receiver whose answer the test switches (status and body). */
async function startReceiver(tls: { key: string; cert: string }) {
  const received: Received[] = [];
  const answer = { status: 204, body: "" };
  const server: Server = createServer({ key: tls.key, cert: tls.cert }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      received.push({ rawBody: Buffer.concat(chunks), headers: req.headers });
      res.writeHead(answer.status, { "Content-Type": "text/html" }).end(answer.body);
    });
  });
  server.on("tlsClientError", () => undefined);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `https://127.0.0.1:${(server.address() as AddressInfo).port}${HOOK_PATH}`,
    received,
    answer,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

let ca: TestCa;
let stack: PrivateStack;
let receiver: Awaited<ReturnType<typeof startReceiver>>;
let browser: Browser;
let page: Page;
let problems: string[];
let token: string;
let link: { id: string; url: string };
let secret: string;
let webhookUuid: string;
const steps: string[] = [];

async function api(method: string, path: string, body?: unknown) {
  const response = await fetch(`${stack.baseUrl}${path}`, {
    method,
    headers: {
      Authorization: `Bearer ${token}`,
      ...(body === undefined ? {} : { "Content-Type": "application/json" }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: response.status, body: (await response.json()) as { data: never } };
}

/** A screenshot of the step and an axe-core check of the screen as it is. */
async function step(name: string): Promise<void> {
  const file = join(SCREENSHOTS, `${String(steps.length + 1).padStart(2, "0")}-${name}.png`);
  await page.screenshot({ path: file, fullPage: true });
  steps.push(file);
  expect(await seriousViolations(page), name).toEqual([]);
}

const rows = () => page.getByTestId("delivery");

beforeAll(async () => {
  mkdirSync(SCREENSHOTS, { recursive: true });
  ca = createTestCa();
  receiver = await startReceiver({ key: ca.serverKey, cert: ca.serverCert });
  stack = await startPrivateStack({
    env: {
      WEBHOOK_ALLOW_LOOPBACK: "true",
      WEBHOOK_EXTRA_CA_FILE: ca.caFile,
      // Six attempts within seconds, so the page shows the retries and the delivery dying.
      WEBHOOK_RETRY_SCHEDULE_MS: "300,300,300,300,300",
    },
  });
  const tokenResponse = await fetch(`${stack.baseUrl}/oauth/token`, {
    method: "POST",
    headers: {
      Authorization: `Basic ${Buffer.from(`${stack.demoClient.clientId}:${stack.demoClient.clientSecret}`).toString("base64")}`,
      "Content-Type": "application/x-www-form-urlencoded",
    },
    body: "grant_type=client_credentials&scope=webhooks:read webhooks:write",
  });
  expect(tokenResponse.status).toBe(200);
  token = ((await tokenResponse.json()) as { access_token: string }).access_token;
  browser = await launchChromium();
  page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  problems = watchPage(page).problems;
}, 240_000);

afterAll(async () => {
  await browser?.close();
  await stack?.stop();
  await receiver?.close();
  ca?.dispose();
});

describe("the subscriber portal on the local stack, in Chromium", () => {
  it("opens a link made through the API; the link works once", { timeout: 60_000 }, async () => {
    const created = await api("POST", "/v1/webhooks/portal-sessions", {});
    expect(created.status).toBe(201);
    link = created.body.data;
    const response = await page.goto(link.url);
    expect(response?.status()).toBe(200);
    expect(new URL(page.url()).pathname).toBe("/portal/");
    expect(page.url()).not.toContain("token=");
    await page.getByRole("heading", { level: 1, name: "Delivery log" }).waitFor();
    expect(await page.getByText(stack.demoClient.clientId).count()).toBe(1);
    await step("opened");
    // The same link again, in another browser context: refused.
    const other = await browser.newPage();
    const again = await other.goto(link.url);
    expect(again?.status()).toBe(410);
    await other.close();
  });

  it(
    "creates a subscription to a local receiver, its secret shown once",
    { timeout: 60_000 },
    async () => {
      await page.getByRole("link", { name: "Subscriptions" }).click();
      await page.getByLabel("Endpoint URL").fill(receiver.url);
      await page.getByRole("checkbox", { name: "system.ping" }).check();
      await page.getByRole("button", { name: "Create subscription" }).click();
      secret = (await page.getByTestId("secret").textContent({ timeout: 10_000 })) ?? "";
      expect(secret).toMatch(/^whsec_/);
      await step("subscription-created");
      await page.getByRole("link", { name: "Open it" }).click();
      await page.getByTestId("state").waitFor();
      webhookUuid = decodeURIComponent(new URL(page.url()).hash.split("/").at(-1)!);
      expect(await page.getByTestId("state").textContent()).toBe("enabled");
    },
  );

  it(
    "sends a test ping: it arrives, signed, and the delivery appears in the log",
    { timeout: 60_000 },
    async () => {
      await page.getByRole("button", { name: "Send test ping" }).click();
      await expect
        .poll(() => rows().first().getAttribute("data-status"), { timeout: 20_000 })
        .toBe("succeeded");
      expect(receiver.received).toHaveLength(1);
      const event = verify(receiver.received[0]!.rawBody, receiver.received[0]!.headers, {
        secret,
      });
      expect(event.event_type).toBe("system.ping");
      await page
        .getByRole("button", { name: /^Attempts/ })
        .first()
        .click();
      await page.getByTestId("attempt").first().waitFor();
      await step("ping-delivered");
    },
  );

  it(
    "shows the retries while the receiver fails, its answer as text, until the delivery is dead",
    { timeout: 90_000 },
    async () => {
      receiver.answer.status = 503;
      receiver.answer.body = "<h1>Down for <script>maintenance</script></h1>";
      const before = receiver.received.length;
      await page.getByRole("button", { name: "Send test ping" }).click();
      await expect.poll(() => rows().count(), { timeout: 10_000 }).toBe(2);
      await page
        .getByRole("button", { name: /^Attempts/ })
        .first()
        .click();
      // The retries appear as they happen (the log updates itself).
      await expect
        .poll(() => page.getByTestId("attempt").count(), { timeout: 30_000 })
        .toBeGreaterThanOrEqual(2);
      await step("retrying");
      await expect
        .poll(() => rows().first().getAttribute("data-status"), { timeout: 60_000 })
        .toBe("dead");
      expect(receiver.received.length - before).toBe(6);
      const samples = await page.getByTestId("response-sample").allTextContents();
      expect(samples).toContain(receiver.answer.body);
      expect(await page.locator("main script, main h1 script").count()).toBe(0);
      await step("dead");
    },
  );

  it(
    "redelivers the dead delivery once the receiver works again",
    { timeout: 60_000 },
    async () => {
      receiver.answer.status = 204;
      receiver.answer.body = "";
      await page.getByRole("button", { name: "Redeliver" }).click();
      await expect
        .poll(() => rows().first().getAttribute("data-status"), { timeout: 20_000 })
        .toBe("succeeded");
      await step("redelivered");
    },
  );

  it(
    "rotates the secret: the new one shown once with its window; the receiver verifies both signatures",
    { timeout: 60_000 },
    async () => {
      await page.getByRole("button", { name: "Rotate secret" }).click();
      const rotated = (await page.getByTestId("secret").textContent({ timeout: 10_000 })) ?? "";
      expect(rotated).toMatch(/^whsec_/);
      expect(rotated).not.toBe(secret);
      expect(await page.getByTestId("rotation-window").textContent()).toContain("previous secret");
      await step("secret-rotated");
      const before = receiver.received.length;
      await page.getByRole("button", { name: "Send test ping" }).click();
      await waitFor(
        "the ping signed with both secrets",
        () => receiver.received.length > before,
        20_000,
      );
      const delivery = receiver.received.at(-1)!;
      expect(String(delivery.headers["x-svc-signature"]).split(",")).toHaveLength(2);
      expect(verify(delivery.rawBody, delivery.headers, { secret: rotated }).event_type).toBe(
        "system.ping",
      );
      expect(verify(delivery.rawBody, delivery.headers, { secret }).event_type).toBe("system.ping");
    },
  );

  it(
    "shows the log across subscriptions, the event catalogue, the events feed and how to verify",
    { timeout: 60_000 },
    async () => {
      await page.getByRole("link", { name: "Delivery log" }).click();
      await page.getByRole("heading", { level: 1, name: "Delivery log" }).waitFor();
      await expect.poll(() => rows().count(), { timeout: 10_000 }).toBe(3);
      await step("delivery-log");
      await page.getByRole("link", { name: "Event catalogue" }).click();
      await page.getByText("Example payload").first().waitFor();
      await page.getByText("Example payload").first().click();
      await step("event-catalogue");
      await page.getByRole("link", { name: "Events feed" }).click();
      await page.getByRole("heading", { level: 1, name: "Events feed" }).waitFor();
      await page.getByText("Loading events…").waitFor({ state: "detached" });
      await step("events-feed");
      await page.getByRole("link", { name: "Verify signatures" }).click();
      await page.getByRole("heading", { level: 1, name: "Verify signatures" }).waitFor();
      await step("verify");
    },
  );

  it("refuses once the link is revoked", { timeout: 60_000 }, async () => {
    const revoked = await api("DELETE", `/v1/webhooks/portal-sessions/${link.id}`);
    expect(revoked.status).toBe(200);
    await page.goto(`${new URL(link.url).origin}/portal/#/deliveries`);
    await page.getByRole("heading", { name: "This portal session has ended" }).waitFor();
    await step("revoked");
    const direct = await fetch(`${stack.baseUrl}/v1/webhooks/${webhookUuid}`, {
      headers: { Authorization: `Bearer ${token}` },
    });
    expect(direct.status).toBe(200);
    // The console's only errors are the answers the page was refused with: 401 after revocation,
    // and the events feed's 403 for the kinds the session's scopes do not read.
    const expected = (p: string) =>
      /status of 401/.test(p) || (/status of 403/.test(p) && p.includes("/portal/api/v1/events"));
    expect(problems.filter((p) => !expected(p))).toEqual([]);
    console.log(`portal journey screenshots:\n${steps.join("\n")}`);
  });
});
