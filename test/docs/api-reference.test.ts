// The API reference page (GET /reference) in a real browser: Debian's Chromium, headless, driven by
// puppeteer-core, loads the page from a running auth process (its real entry point, on loopback)
// and must show every operation of the document it serves, with no console error and no request
// that failed or left the page's origin (the page's CSP reports a blocked one as a console error).
import { accessSync, constants } from "node:fs";
import { delimiter, join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import puppeteer, { type Browser } from "puppeteer-core";
import { startServiceUnderBench, type ServiceUnderBench } from "@svc/bench";
import { entryArgs, REPO_ROOT } from "@svc/manifest";

const ENTRY = "services/auth/src/main.ts";
const METHODS = ["get", "put", "post", "delete", "patch", "options", "head", "trace"];

/** Debian's `chromium` on PATH; CI installs it (.ci/run). */
function chromiumPath(): string {
  for (const dir of (process.env.PATH ?? "").split(delimiter)) {
    const candidate = join(dir, "chromium");
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not in this folder
    }
  }
  throw new Error(
    "Chromium is not installed (no `chromium` on PATH): install Debian's package with `apt-get install chromium` (.ci/run does it before the tests).",
  );
}

/**
 * What the page shows, run in the page (a string: this project's TypeScript has no DOM types): the
 * title, the renderer's error panel, and each visible operation block as `METHOD path`.
 */
const RENDERED = `(() => ({
  title: document.querySelector(".info .title")?.textContent ?? "",
  errors: [...document.querySelectorAll(".errors-wrapper")].map((e) => e.textContent),
  shown: [...document.querySelectorAll(".opblock")]
    .filter((block) => block.getBoundingClientRect().height > 0)
    .map((block) => {
      const method = block.querySelector(".opblock-summary-method")?.textContent ?? "";
      const path = block.querySelector(".opblock-summary-path")?.getAttribute("data-path") ?? "";
      return method.trim().toUpperCase() + " " + path;
    }),
}))()`;

let auth: ServiceUnderBench | undefined;
let browser: Browser | undefined;

afterAll(async () => {
  await browser?.close();
  await auth?.stop();
});

describe("the API reference page in Chromium", () => {
  it(
    "shows every operation of the document, with no console error and no failed or off-origin request",
    { timeout: 240_000 },
    async () => {
      // Here, not in a hook: without Chromium the test fails (it is never reported as skipped).
      const executablePath = chromiumPath();
      auth = await startServiceUnderBench({
        root: REPO_ROOT,
        entry: ENTRY,
        args: entryArgs(ENTRY, { from: "source" }),
        env: {},
      });
      browser = await puppeteer.launch({
        executablePath,
        headless: true,
        // Chromium's sandbox refuses to run as root (CI's containers).
        args: process.getuid?.() === 0 ? ["--no-sandbox"] : [],
      });
      const origin = auth.origin;
      const openApi = (await (await fetch(`${origin}/openapi.json`)).json()) as {
        paths: Record<string, Record<string, unknown>>;
        webhooks: Record<string, Record<string, unknown>>;
      };
      // Every operation as `METHOD path`; a webhook's as `POST <event type>`, as the page shows it.
      const operations = [openApi.paths, openApi.webhooks]
        .flatMap((items) =>
          Object.entries(items).flatMap(([path, item]) =>
            Object.keys(item)
              .filter((method) => METHODS.includes(method))
              .map((method) => `${method.toUpperCase()} ${path}`),
          ),
        )
        .sort();
      expect(operations).toContain("GET /reference");
      expect(operations).toContain("POST vacancy.updated");

      const page = await browser.newPage();
      const consoleErrors: string[] = [];
      const failed: string[] = [];
      const offOrigin: string[] = [];
      page.on("console", (message) => {
        if (message.type() === "error" || message.type() === "assert")
          consoleErrors.push(`${message.text()} (${message.location().url ?? "?"})`);
      });
      page.on("pageerror", (error) => consoleErrors.push(`uncaught: ${String(error)}`));
      page.on("request", (request) => {
        const url = request.url();
        if (!url.startsWith("data:") && new URL(url).origin !== origin) offOrigin.push(url);
      });
      page.on("requestfailed", (request) =>
        failed.push(`${request.url()}: ${request.failure()?.errorText ?? "failed"}`),
      );
      page.on("response", (response) => {
        if (response.status() >= 400) failed.push(`${response.url()}: ${response.status()}`);
      });

      const started = Date.now();
      const loaded = await page.goto(`${origin}/reference`, {
        waitUntil: "networkidle0",
        timeout: 60_000,
      });
      expect(loaded?.status()).toBe(200);
      // Rendered: as many operation blocks as the document has operations (or the wait ends).
      await page
        .waitForFunction(`document.querySelectorAll(".opblock").length >= ${operations.length}`, {
          timeout: 60_000,
        })
        .catch(() => undefined);
      const rendered = (await page.evaluate(RENDERED)) as {
        title: string;
        errors: string[];
        shown: string[];
      };
      console.log(
        `reference page: ${rendered.shown.length} of ${operations.length} operations shown ${Date.now() - started} ms after navigation`,
      );

      expect(rendered.title).toContain("Integration service API");
      expect(rendered.errors, "the renderer's own error panel").toEqual([]);
      expect([...rendered.shown].sort(), "the operations shown, against the document's").toEqual(
        operations,
      );
      expect({ consoleErrors, failed, offOrigin }).toEqual({
        consoleErrors: [],
        failed: [],
        offOrigin: [],
      });
      await page.close();
    },
  );
});
