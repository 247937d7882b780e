// The browsers the portal is tested in, Debian's packages (no browser download: CI installs
// `chromium` and `firefox-esr`, .ci/run): Chromium driven by playwright-core (the journey on the
// real stack, the benchmark), and both Chromium and Firefox driven by puppeteer-core, which speaks
// WebDriver BiDi to Firefox (the page's own tests; docs/decisions/portal-browsers.md). Also the
// axe-core check every portal screen must pass.
import { accessSync, constants, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { delimiter, join } from "node:path";
import { chromium, type Browser, type Page } from "playwright-core";
import puppeteer, {
  type Browser as PuppeteerBrowser,
  type Page as PuppeteerPage,
} from "puppeteer-core";

/** A Debian browser's program: in /usr/bin or on PATH; a test without it fails, naming the fix. */
function program(name: string): string {
  const dirs = ["/usr/bin", ...(process.env.PATH ?? "").split(delimiter)];
  for (const dir of dirs) {
    const candidate = join(dir, name);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here
    }
  }
  throw new Error(
    `${name} is not installed: \`apt-get install ${name}\` (.ci/run does it before the tests).`,
  );
}

export const chromiumPath = () => program("chromium");

export const CHROMIUM_FLAGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--no-first-run",
];

export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: chromiumPath(), args: CHROMIUM_FLAGS, headless: true });
}

/** The browsers the page's own tests run in. */
export const BROWSERS = ["chromium", "firefox"] as const;
export type BrowserName = (typeof BROWSERS)[number];

/** Chromium (DevTools protocol) or Firefox ESR (WebDriver BiDi), headless, through puppeteer-core. */
export function launchBrowser(name: BrowserName): Promise<PuppeteerBrowser> {
  return name === "chromium"
    ? puppeteer.launch({ browser: "chrome", executablePath: chromiumPath(), args: CHROMIUM_FLAGS })
    : puppeteer.launch({ browser: "firefox", executablePath: program("firefox-esr") });
}

const AXE_SOURCE = readFileSync(
  createRequire(import.meta.url).resolve("axe-core/axe.min.js"),
  "utf8",
);

export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: string[];
}

/**
 * axe-core's WCAG 2 A/AA rules on the page as it is now; the serious and critical violations.
 * axe runs through the driver's protocol (the page's CSP allows no injected script).
 */
export async function seriousViolations(page: {
  evaluate(expression: string): Promise<unknown>;
}): Promise<AxeViolation[]> {
  await page.evaluate(AXE_SOURCE);
  const result = (await page.evaluate(`axe.run(document, {
      runOnly: { type: "tag", values: ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "best-practice"] },
      resultTypes: ["violations"],
    })`)) as {
    violations: Array<{
      id: string;
      impact: string | null;
      help: string;
      nodes: Array<{ target: unknown }>;
    }>;
  };
  return result.violations
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .map((v) => ({
      id: v.id,
      impact: v.impact,
      help: v.help,
      nodes: v.nodes.slice(0, 5).map((n) => JSON.stringify(n.target)),
    }));
}

type Message = { type(): string; text(): string; location(): { url?: string } };

/** Console errors and failed requests of a page (a CSP violation is a console error). */
export function watchPage(page: Page | PuppeteerPage): { problems: string[] } {
  const problems: string[] = [];
  // The two drivers name these events and their fields alike.
  const emitter = page as unknown as { on(event: string, listener: (value: never) => void): void };
  const on = emitter.on.bind(page);
  on("console", (message: Message) => {
    if (message.type() === "error")
      problems.push(`console: ${message.text()} (${message.location().url ?? ""})`);
  });
  on("pageerror", (error: Error) => problems.push(`page error: ${error.message}`));
  return { problems };
}
