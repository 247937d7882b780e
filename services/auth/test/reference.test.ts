import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fetchJson } from "@svc/testing";
import { REFERENCE_CSP } from "../src/http/reference-route.ts";
import { startAuth, type AuthUnderTest } from "./support/harness.ts";

let auth: AuthUnderTest;

beforeAll(async () => {
  auth = await startAuth();
});
afterAll(() => auth.close());

/** The URLs of every script, stylesheet, link and image the page names. */
function assetUrls(html: string): string[] {
  return [...html.matchAll(/<(?:script|link|img)\b[^>]*?\s(?:src|href)="([^"]*)"/g)].map(
    (m) => m[1] ?? "",
  );
}

describe("GET /reference", () => {
  it("serves the page without a token, under a CSP that allows this origin only", async () => {
    const res = await fetch(`${auth.app.baseUrl}/reference`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/html; charset=utf-8");
    expect(res.headers.get("content-security-policy")).toBe(REFERENCE_CSP);
    expect(REFERENCE_CSP).toContain("default-src 'none'");
    expect(REFERENCE_CSP).toContain("script-src 'self';");
    expect(REFERENCE_CSP).not.toMatch(/unsafe-|https?:|\*/);
    const html = await res.text();
    expect(html).toMatch(/^<!doctype html>/);
    expect(html).not.toMatch(/<script>|<style|\sstyle=|\son\w+=/i);
  });

  it("references only same-origin assets, and each answers 200 with its type", async () => {
    const html = await (await fetch(`${auth.app.baseUrl}/reference`)).text();
    const urls = assetUrls(html);
    // The icon is an empty data: URL, so the browser asks for no /favicon.ico.
    const assets = urls.filter((url) => url !== "data:,");
    expect(assets).toEqual([
      "/reference/renderer.css",
      "/reference/renderer.js",
      "/reference/reference.js",
    ]);
    for (const url of assets) {
      const resolved = new URL(url, auth.app.baseUrl);
      expect(resolved.origin, url).toBe(auth.app.baseUrl);
      const res = await fetch(resolved);
      expect(res.status, url).toBe(200);
      expect(res.headers.get("content-type"), url).toBe(
        url.endsWith(".js") ? "text/javascript; charset=utf-8" : "text/css; charset=utf-8",
      );
      expect((await res.text()).length, url).toBeGreaterThan(0);
    }
  });

  it("serves the renderer's script as installed, and a script that loads the document from this origin", async () => {
    const installed = createRequire(import.meta.url).resolve(
      "swagger-ui-dist/swagger-ui-bundle.js",
    );
    const renderer = await fetch(`${auth.app.baseUrl}/reference/renderer.js`);
    expect(renderer.headers.get("cache-control")).toBe("public, max-age=300");
    expect(renderer.headers.get("last-modified")).toBeNull();
    expect(await renderer.text()).toBe(readFileSync(installed, "utf8"));
    const start = await (await fetch(`${auth.app.baseUrl}/reference/reference.js`)).text();
    expect(start).toContain('url: "/openapi.json"');
    expect(start).toContain("validatorUrl: null");
  });

  it("takes the renderer from a production dependency, so the image installs it", () => {
    const manifest = JSON.parse(
      readFileSync(new URL("../package.json", import.meta.url), "utf8"),
    ) as { dependencies: Record<string, string> };
    expect(manifest.dependencies["swagger-ui-dist"]).toBeDefined();
  });

  it("answers an unknown file with 404 and another method with 405, in the error envelope", async () => {
    const missing = await fetchJson<{ error: { code: string } }>(
      `${auth.app.baseUrl}/reference/swagger-ui-bundle.js`,
    );
    expect(missing.status).toBe(404);
    expect(missing.body.error.code).toBe("NOT_FOUND");
    for (const path of ["/reference", "/reference/renderer.js"]) {
      const res = await fetchJson<{ success: boolean; error: { code: string } }>(
        `${auth.app.baseUrl}${path}`,
        { method: "POST" },
      );
      expect(res.status, path).toBe(405);
      expect(res.headers.get("allow"), path).toBe("GET, HEAD");
      expect(res.body, path).toMatchObject({
        success: false,
        error: { code: "METHOD_NOT_ALLOWED" },
      });
    }
  });
});
