// The built portal page in Chromium and in Firefox (puppeteer-core, one test body for both)
// against a stand-in of its API (./support/standin.ts): every screen passes axe-core with no
// serious or critical violation under the page's CSP, subscribers' answers are shown as text (an
// XSS corpus), every change carries the CSRF token, a read-only session offers no change, the log
// picks up a new delivery within 2 s, the catalogue is the API's, and an ended session gets the
// page that refuses. The journey on the real stack is test/e2e/portal-journey.test.ts.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Browser, Page } from "puppeteer-core";
import { buildPortal } from "../src/build/build.ts";
import { BROWSERS, launchBrowser, seriousViolations, watchPage } from "./support/browser.ts";
import {
  attempt,
  delivery,
  eventType,
  startStandin,
  subscription,
  type Standin,
} from "./support/standin.ts";

const XSS_CORPUS = [
  `<img src=x onerror="window.__xss=1">`,
  `<script>window.__xss=2</script>`,
  `"><svg onload=window.__xss=3>`,
  `<iframe src="javascript:window.__xss=4"></iframe>`,
  `javascript:window.__xss=5`,
  `<a href="javascript:window.__xss=6">click</a>{{constructor.constructor('window.__xss=7')()}}`,
];
const ASSETS = fileURLToPath(new URL("../dist/assets", import.meta.url));

const standins: Standin[] = [];

beforeAll(async () => {
  await buildPortal();
}, 120_000);

afterAll(async () => {
  await Promise.all(standins.map((s) => s.close()));
});

async function standinWithData(session: Parameters<typeof startStandin>[0] = {}) {
  const standin = await startStandin(session);
  standins.push(standin);
  const sub = subscription({ event_types: ["vacancy.updated", "system.ping"] });
  standin.state.subscriptions.push(sub);
  const id = sub.webhook_uuid as string;
  standin.state.deliveries.set(
    id,
    XSS_CORPUS.map((sample, i) =>
      delivery(
        id,
        {
          status: i === 0 ? "dead" : "failed",
          last_status_code: 500,
          created_at: new Date(Date.now() - (i + 1) * 60_000).toISOString(),
        },
        [
          attempt({
            status_code: 500,
            outcome: "failed",
            error_class: "http_server_error",
            response_sample: sample,
          }),
        ],
      ),
    ),
  );
  return { standin, id };
}

/** The element with this role and accessible name, once it is there. */
const byRole = (page: Page, role: string, name: string) =>
  page.locator(`::-p-aria([name="${name}"][role="${role}"])`);
const byText = (page: Page, text: string) => page.locator(`::-p-text(${text})`);
const count = (page: Page, selector: string) => page.$$eval(selector, (els) => els.length);
/** The values a select offers. */
const choices = (page: Page, select: string) =>
  page.$$eval(`${select} option`, (els) => els.map((e) => (e as HTMLOptionElement).value));
const DELIVERY = '[data-testid="delivery"]';
/** Each delivery row's button that opens its attempts. */
const ATTEMPTS_BUTTON = `${DELIVERY} button[aria-controls]`;

/** Sets a `datetime-local` input as typing would (the browsers' typing into it differs). */
async function fillTime(page: Page, selector: string, value: string) {
  await page.$eval(
    selector,
    (el, v) => {
      (el as HTMLInputElement).value = v;
      el.dispatchEvent(new Event("input", { bubbles: true }));
    },
    value,
  );
}

describe.each(BROWSERS)("the portal page in %s", (browserName) => {
  let browser: Browser;

  beforeAll(async () => {
    browser = await launchBrowser(browserName);
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
  });

  async function open(standin: Standin, hash = ""): Promise<{ page: Page; problems: string[] }> {
    const page = await browser.newPage();
    const { problems } = watchPage(page);
    await page.goto(`${standin.origin}/portal/${hash}`);
    return { page, problems };
  }

  it(
    "passes axe-core on every screen, with no console error under its CSP",
    { timeout: 120_000 },
    async () => {
      const { standin, id } = await standinWithData();
      const { page, problems } = await open(standin);
      // Each screen and what shows it has its data.
      const screens: Array<[string, string]> = [
        ["#/deliveries", DELIVERY],
        ["#/subscriptions", `a[href="#/subscriptions/${id}"]`],
        [`#/subscriptions/${id}`, '[data-testid="state"]'],
        ["#/catalogue", "::-p-text(Example payload)"],
        ["#/events", "::-p-text(No events.)"],
        ["#/verify", "::-p-aria([name='Verify signatures'][role='heading'])"],
      ];
      const found: Record<string, unknown> = {};
      for (const [hash, ready] of screens) {
        await page.goto(`${standin.origin}/portal/${hash}`);
        await page.locator(ready).wait();
        if (hash === "#/deliveries") {
          await page.locator(ATTEMPTS_BUTTON).click();
          await page.locator('[data-testid="attempt"]').wait();
        }
        const violations = await seriousViolations(page);
        if (violations.length > 0) found[hash] = violations;
      }
      expect(found).toEqual({});
      expect(problems).toEqual([]);
      await page.close();
    },
  );

  it(
    "shows each subscriber answer of an XSS corpus as text: nothing runs, no element is made",
    { timeout: 60_000 },
    async () => {
      const { standin } = await standinWithData();
      const { page } = await open(standin, "#/deliveries");
      await page.locator(ATTEMPTS_BUTTON).wait();
      const buttons = await page.$$(ATTEMPTS_BUTTON);
      expect(buttons).toHaveLength(XSS_CORPUS.length);
      for (const button of buttons) await button.click();
      const samples = '[data-testid="response-sample"]';
      await expect.poll(() => count(page, samples), { timeout: 10_000 }).toBe(XSS_CORPUS.length);
      const texts = await page.$$eval(samples, (els) => els.map((e) => e.textContent));
      expect(texts.sort()).toEqual([...XSS_CORPUS].sort());
      expect(await page.evaluate(`window.__xss ?? null`)).toBeNull();
      expect(await count(page, "main img, main script, main svg, main iframe")).toBe(0);
      await page.close();
    },
  );

  it(
    "reads the session and the subscriptions once as the log opens: the page uses the answers its HTML preloads",
    { timeout: 60_000 },
    async () => {
      const html = readFileSync(join(ASSETS, "../index.html"), "utf8");
      const preloaded = [...html.matchAll(/rel="preload"[^>]*href="\/portal\/api([^"]+)"/g)].map(
        (m) => m[1]!.replaceAll("&amp;", "&"),
      );
      expect(preloaded).toEqual([
        "/session",
        "/v1/webhooks?per_page=100&page=1",
        "/v1/webhooks/deliveries?page=1&per_page=50",
      ]);
      const { standin } = await standinWithData();
      const { page, problems } = await open(standin, "#/deliveries");
      await page.locator(DELIVERY).wait();
      const reads = (path: string) => standin.state.reads.filter((r) => r === path).length;
      expect(reads("/session")).toBe(1);
      expect(reads("/v1/webhooks?per_page=100&page=1")).toBe(1);
      expect(reads("/v1/webhooks/deliveries?page=1&per_page=50")).toBeGreaterThanOrEqual(1);
      expect(problems).toEqual([]);
      await page.close();
    },
  );

  it(
    "sends the session's CSRF token with every change, and shows a rotated secret once with its window",
    { timeout: 60_000 },
    async () => {
      const { standin, id } = await standinWithData();
      const { page } = await open(standin, `#/subscriptions/${id}`);
      await byRole(page, "button", "Rotate secret").click();
      const secret = '[data-testid="secret"]';
      await expect
        .poll(() => page.$eval(secret, (e) => e.textContent).catch(() => null), {
          timeout: 10_000,
        })
        .toBe("whsec_rotated-standin-secret");
      expect(await page.$eval('[data-testid="rotation-window"]', (e) => e.textContent)).toContain(
        "previous secret keeps signing",
      );
      await byRole(page, "button", "I have stored it").click();
      expect(await count(page, secret)).toBe(0);
      await byRole(page, "button", "Disable").click();
      await expect
        .poll(() => page.$eval('[data-testid="state"]', (e) => e.textContent), {
          timeout: 10_000,
        })
        .toBe("disabled");
      expect(standin.state.changes.map((c) => [c.method, c.path, c.csrf])).toEqual([
        ["POST", `/v1/webhooks/${id}/rotate-secret`, "csrf-standin-token"],
        ["PATCH", `/v1/webhooks/${id}`, "csrf-standin-token"],
      ]);
      expect(standin.state.changes[1]!.body).toEqual({ enabled: false });
      await page.close();
    },
  );

  it("offers no change in a read-only session", { timeout: 60_000 }, async () => {
    const { standin, id } = await standinWithData({ read_only: true });
    const { page } = await open(standin, `#/subscriptions/${id}`);
    await byText(page, "This session is read-only").wait();
    await page.locator(ATTEMPTS_BUTTON).click();
    await page.locator('[data-testid="attempt"]').wait();
    const labels = await page.$$eval("button", (els) => els.map((e) => e.textContent ?? ""));
    expect(
      labels.filter((l) =>
        /ping|disable|enable|rotate|delete|redeliver|recover|save|create/i.test(l),
      ),
    ).toEqual([]);
    await page.goto(`${standin.origin}/portal/#/subscriptions`);
    await byText(page, "subscriptions cannot be created here").wait();
    expect(await count(page, "#create-url")).toBe(0);
    expect(standin.state.changes).toEqual([]);
    await page.close();
  });

  it(
    "shows a new delivery in the log within 2 s, filters by status, event type and time, and is usable from the keyboard",
    { timeout: 60_000 },
    async () => {
      const { standin, id } = await standinWithData();
      const { page } = await open(standin, "#/deliveries");
      const rows = () => count(page, DELIVERY);
      await expect.poll(rows, { timeout: 15_000 }).toBe(XSS_CORPUS.length);
      const added = Date.now();
      standin.state.deliveries
        .get(id)!
        .unshift(delivery(id, { event_type: "system.ping", status: "pending" }));
      await expect.poll(rows, { timeout: 2_000, interval: 100 }).toBe(XSS_CORPUS.length + 1);
      expect(Date.now() - added).toBeLessThan(2_000);
      // Each filter is judged by the rows it leaves, not their number: the previous filter's
      // single row is still shown until the next answer arrives.
      const shown = (attribute: string) =>
        page.$$eval(DELIVERY, (els, a) => els.map((e) => e.getAttribute(a)), attribute);
      // The type filter's choices arrive from the catalogue once the log is shown.
      await expect.poll(() => choices(page, "#filter-type")).toContain("system.ping");
      await page.select("#filter-type", "system.ping");
      await expect
        .poll(() => shown("data-event-type"), { timeout: 5_000 })
        .toEqual(["system.ping"]);
      await page.select("#filter-type", "");
      await page.select("#filter-status", "dead");
      await expect.poll(() => shown("data-status"), { timeout: 5_000 }).toEqual(["dead"]);
      await page.select("#filter-status", "");
      await fillTime(page, "#filter-from", "2099-01-01T00:00");
      await byText(page, "No delivery matches.").setTimeout(5_000).wait();
      await fillTime(page, "#filter-from", "");
      await expect.poll(rows, { timeout: 5_000 }).toBe(XSS_CORPUS.length + 1);
      // Keyboard: the skip link, then the navigation, reached and followed with Tab and Enter.
      await page.reload();
      await page.locator(DELIVERY).wait();
      const focused = () => page.evaluate(`document.activeElement.textContent`);
      await page.keyboard.press("Tab");
      expect(await focused()).toBe("Skip to content");
      let label = "";
      for (let i = 0; i < 8 && label !== "Event catalogue"; i++) {
        await page.keyboard.press("Tab");
        label = (await focused()) as string;
      }
      expect(label).toBe("Event catalogue");
      await page.keyboard.press("Enter");
      await byRole(page, "heading", "Event catalogue").wait();
      await page.close();
    },
  );

  it(
    "shows the event catalogue the API serves, a type the page's scripts never named included",
    { timeout: 60_000 },
    async () => {
      const { standin } = await standinWithData();
      const type = "contract.signed";
      standin.state.eventTypes.push(
        eventType(type, {
          description: "A contract was signed; fetch it from `links.self`.",
          occurred_at: "When both parties had signed.",
          example: { event_type: type, entity: { type: "contract", id: "c-42" } },
        }),
      );
      const scripts = readdirSync(ASSETS)
        .filter((f) => f.endsWith(".js"))
        .map((f) => readFileSync(join(ASSETS, f), "utf8"));
      expect(scripts.some((s) => s.includes(type))).toBe(false);
      const { page } = await open(standin, "#/catalogue");
      const section = `[id="event-${type}"]`;
      await page.locator(section).wait();
      const text = await page.$eval(section, (e) => e.textContent ?? "");
      expect(text).toContain("A contract was signed; fetch it from links.self.");
      expect(text).toContain("When both parties had signed.");
      expect(text).toContain('"id": "c-42"');
      const listed = await page.$$eval("main h2 code", (els) => els.map((e) => e.textContent));
      expect(listed).toEqual(standin.state.eventTypes.map((e) => e.event_type));
      // The log's type filter offers it too.
      await page.goto(`${standin.origin}/portal/#/deliveries`);
      await expect.poll(() => choices(page, "#filter-type")).toContain(type);
      await page.close();
    },
  );

  it(
    "refuses once the session has ended (a revoked link), saying so",
    { timeout: 60_000 },
    async () => {
      const { standin } = await standinWithData();
      const { page } = await open(standin, "#/deliveries");
      await page.locator(DELIVERY).wait();
      standin.state.revoked = true;
      const ended = byRole(page, "heading", "This portal session has ended");
      await ended.setTimeout(5_000).wait();
      await page.reload();
      await ended.wait();
      expect(await count(page, "nav")).toBe(0);
      await page.close();
    },
  );
});
