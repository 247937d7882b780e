// The subscriber portal in Chromium (playwright-core driving Debian's chromium) on the whole local
// stack (tools/start.ts, on private databases and ports) with 10,000 deliveries in one
// subscription's log:
// - link to log: from opening a portal link (the one-time token exchanged, 303 to the page) to
//   the delivery log shown (the page's `portal:delivery-log-shown` mark; Chromium's navigation
//   timing counts from the link's request, redirect included), each time a fresh link and browser
//   context (nothing cached);
// - update delay: from asking for a test ping through the API to its row shown in the open log;
// - log query: the log's queries (the newest 50 deliveries of every subscription, as the page opens,
//   and of one subscription, and those of one status) answered by the portal API at that size,
//   sequentially, from outside the browser with the session's cookie.
// Targets (issue: subscriber portal): shown within 1 s, updates within 2 s, query p99 < 50 ms.
//
//   npm run bench -- --only portal
import { createServer } from "node:https";
import type { AddressInfo } from "node:net";
import { recordBenchRows } from "@svc/bench";
import { createTestCa } from "@svc/testing";
import pg from "pg";
import { startPrivateStack } from "../test/support/private-stack.ts";
import type { Page } from "playwright-core";
import { launchChromium } from "../packages/portal/test/support/browser.ts";

const DELIVERIES = 10_000;
const OPENS = 7;
const UPDATES = 10;
const QUERIES = 300;
const out = (line = "") => process.stdout.write(`${line}\n`);
const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
};
const round = (n: number) => Math.round(n * 10) / 10;

/**
 * Polls an expression in the page until it is truthy and returns its value. Evaluated through the
 * DevTools protocol: the page's CSP forbids eval, which waitForFunction's string form needs.
 */
async function until<T>(page: Page, expression: string, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = (await page.evaluate(expression)) as T;
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${expression}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

const ca = createTestCa();
const receiver = createServer({ key: ca.serverKey, cert: ca.serverCert }, (req, res) => {
  req.resume();
  req.on("end", () => res.writeHead(204).end());
});
await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
const receiverUrl = `https://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;

const stack = await startPrivateStack({
  env: {
    WEBHOOK_ALLOW_LOOPBACK: "true",
    WEBHOOK_EXTRA_CA_FILE: ca.caFile,
    // The query measurement asks more often than a person would.
    WEBHOOK_PORTAL_READS_PER_MINUTE: "60000",
  },
  startTimeoutMs: 300_000,
});
const browser = await launchChromium();
try {
  const tokenAnswer = await fetch(`${stack.baseUrl}/oauth/token`, {
    method: "POST",
    headers: {
      Authorization: `Basic ${Buffer.from(`${stack.demoClient.clientId}:${stack.demoClient.clientSecret}`).toString("base64")}`,
      "Content-Type": "application/x-www-form-urlencoded",
    },
    body: "grant_type=client_credentials&scope=webhooks:read webhooks:write",
  });
  const token = ((await tokenAnswer.json()) as { access_token: string }).access_token;
  const api = async (method: string, path: string, body?: unknown) => {
    const response = await fetch(`${stack.baseUrl}${path}`, {
      method,
      headers: {
        Authorization: `Bearer ${token}`,
        ...(body === undefined ? {} : { "Content-Type": "application/json" }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    if (response.status >= 300) throw new Error(`${method} ${path}: ${response.status}`);
    return ((await response.json()) as { data: Record<string, string> }).data;
  };
  const subscription = await api("POST", "/v1/webhooks", {
    url: receiverUrl,
    event_types: ["vacancy.updated", "system.ping"],
  });
  const webhookUuid = subscription.webhook_uuid!;

  // 10,000 finished deliveries over the last week, each with its attempt, written as the
  // dispatcher writes them.
  const db = new pg.Client({ connectionString: stack.pgUrl });
  await db.connect();
  await db.query(
    `INSERT INTO webhooks.events (event_uuid, event_type, body, received_at)
       SELECT gen_random_uuid(), 'vacancy.updated', '{}', now() - (n * interval '1 minute')
       FROM generate_series(1, $1) AS n`,
    [DELIVERIES],
  );
  await db.query(
    `INSERT INTO webhooks.deliveries (id, subscription_id, event_uuid, event_type, status,
         attempt_count, round_attempts, last_status_code, last_attempt_at, queued_at, created_at, updated_at)
       SELECT gen_random_uuid(), $1, event_uuid, event_type,
         CASE WHEN random() < 0.9 THEN 'succeeded' ELSE 'dead' END, 1, 1, 204,
         received_at, received_at, received_at, received_at
       FROM webhooks.events WHERE event_type = 'vacancy.updated'`,
    [webhookUuid],
  );
  await db.query(
    `INSERT INTO webhooks.delivery_attempts (delivery_id, number, round, attempted_at, duration_ms,
         status_code, outcome, response_sample)
       SELECT id, 1, 1, created_at, 40, 204, 'succeeded', '' FROM webhooks.deliveries
       WHERE subscription_id = $1`,
    [webhookUuid],
  );
  await db.query("ANALYZE webhooks.events, webhooks.deliveries, webhooks.delivery_attempts");
  await db.end();

  // Link to log shown, a fresh link and context each time; the first one warms the processes.
  const shown: number[] = [];
  let cookie = "";
  let page: Page | null = null;
  for (let i = 0; i <= OPENS; i++) {
    const link = await api("POST", "/v1/webhooks/portal-sessions", {});
    const context = await browser.newContext();
    page = await context.newPage();
    await page.goto(link.url!);
    await until(page, `performance.getEntriesByName("portal:delivery-log-shown").length > 0`);
    const ms = (await page.evaluate(
      `performance.getEntriesByName("portal:delivery-log-shown")[0].startTime`,
    )) as number;
    if (i > 0) shown.push(ms);
    const cookies = await context.cookies();
    cookie = cookies.map((c) => `${c.name}=${c.value}`).join("; ");
    if (i < OPENS) await context.close();
  }
  out(`link to log shown (ms): ${shown.map(round).join(", ")}`);

  // Update delay: a test ping asked through the API until its row is in the open log.
  const delays: number[] = [];
  for (let i = 0; i < UPDATES; i++) {
    const before = (await page!.evaluate(
      `document.querySelectorAll('[data-event-type="system.ping"]').length`,
    )) as number;
    const asked = Date.now();
    await api("POST", `/v1/webhooks/${webhookUuid}/test`);
    const seen = await until<number>(
      page!,
      `document.querySelectorAll('[data-event-type="system.ping"]').length > ${before} && Date.now()`,
    );
    delays.push(seen - asked);
    await new Promise((r) => setTimeout(r, 300 + Math.random() * 700));
  }
  out(`update delay (ms): ${delays.map(round).join(", ")}`);

  // The log's queries at this size, through the portal API with the session's cookie.
  const query = async (path: string) => {
    const times: number[] = [];
    for (let i = 0; i < QUERIES; i++) {
      const started = performance.now();
      const response = await fetch(`${stack.baseUrl}/portal/api/v1/webhooks${path}`, {
        headers: { Cookie: cookie },
      });
      await response.arrayBuffer();
      if (response.status !== 200) throw new Error(`${path}: ${response.status}`);
      times.push(performance.now() - started);
    }
    return times;
  };
  const every = await query("/deliveries?page=1&per_page=50");
  const one = await query(`/${webhookUuid}/deliveries?page=1&per_page=50`);
  const dead = await query(`/${webhookUuid}/deliveries?page=1&per_page=50&status=dead`);
  const summary = (times: number[]) =>
    `p50 ${round(percentile(times, 50))} p99 ${round(percentile(times, 99))}`;
  out(
    `log query (ms): newest 50 of every subscription ${summary(every)}; of one ${summary(one)}; dead ${summary(dead)}`,
  );

  const scenario = `${DELIVERIES.toLocaleString("en")} deliveries in the log, Chromium`;
  const row = (metric: string, value: number, target: string, limit: number) => ({
    scenario,
    metric,
    value: round(value),
    unit: "ms",
    target,
    met: value < limit,
  });
  recordBenchRows("portal", [
    row("link to log shown p50", percentile(shown, 50), "< 1,000 ms", 1_000),
    row("link to log shown max", Math.max(...shown), "< 1,000 ms", 1_000),
    row("update delay p50", percentile(delays, 50), "< 2,000 ms", 2_000),
    row("update delay max", Math.max(...delays), "< 2,000 ms", 2_000),
    row("log query p50 (newest 50, every subscription)", percentile(every, 50), "< 50 ms", 50),
    row("log query p99 (newest 50, every subscription)", percentile(every, 99), "< 50 ms", 50),
    row("log query p99 (newest 50, one subscription)", percentile(one, 99), "< 50 ms", 50),
    row("log query p99 (status filter)", percentile(dead, 99), "< 50 ms", 50),
  ]);
} finally {
  await browser.close();
  await stack.stop();
  receiver.closeAllConnections();
  receiver.close();
  ca.dispose();
}
