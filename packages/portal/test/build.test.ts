// The portal's build: a page whose only scripts and styles are files under /portal/ (the page's
// CSP is `default-src 'self'`: no inline script or style), an initial page under 200 KB of
// gzip-compressed JavaScript holding the delivery log but no other screen, and no rebuild when
// nothing changed.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { buildPortal, PORTAL_DIST } from "../src/build/build.ts";

const ROOT = fileURLToPath(new URL("../../..", import.meta.url));
const DIST = join(ROOT, PORTAL_DIST);
const INITIAL_JS_LIMIT = 200 * 1024;

describe("the portal build", () => {
  it(
    "writes a page that loads only its own files, with under 200 KB of compressed JavaScript at first",
    { timeout: 120_000 },
    async () => {
      const first = await buildPortal({ force: true });
      expect(first.files).toContain(`${PORTAL_DIST}/index.html`);
      const html = readFileSync(join(DIST, "index.html"), "utf8");
      expect(html).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
      expect(html).not.toMatch(/\sstyle=/);
      expect(html).not.toMatch(/<style/);
      const urls = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]!);
      expect(urls.length).toBeGreaterThan(0);
      // Its files, and its API's first reads (preloaded).
      for (const url of urls) expect(url, url).toMatch(/^\/portal\/(?:api\/[\w/?=&;-]+|[\w./-]+)$/);
      // The initial JavaScript: the entry script and every chunk the page preloads with it.
      const initial = [
        ...html.matchAll(
          /<(?:script[^>]*type="module"|link[^>]*rel="modulepreload")[^>]*(?:src|href)="\/portal\/([^"]+\.js)"/g,
        ),
      ].map((m) => m[1]!);
      expect(initial.length).toBeGreaterThan(0);
      const gzipped = initial.reduce(
        (sum, file) => sum + gzipSync(readFileSync(join(DIST, file)), { level: 9 }).length,
        0,
      );
      expect(gzipped).toBeLessThan(INITIAL_JS_LIMIT);
      // The first screen, the delivery log, is in it; every other screen is a chunk of its own.
      const entry = readFileSync(join(DIST, initial[0]!), "utf8");
      expect(entry).toContain("Loading deliveries");
      expect(entry).not.toContain("Example payload");
      for (const screen of ["subscriptions", "subscription", "catalogue", "events", "verify"])
        expect(
          first.files.filter((f) => new RegExp(`/${screen}-[\\w-]+\\.js$`).test(f)),
        ).toHaveLength(1);
      const again = await buildPortal();
      expect(again.upToDate).toBe(true);
      expect(again.files.sort()).toEqual(first.files.sort());
    },
  );
});
