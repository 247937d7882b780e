import { describe, expect, it } from "vitest";
import { fetchJson, type StartedApp } from "./http.ts";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/**
 * The platform behaviour every service shares (health and version, their unversioned aliases, the
 * error envelope), checked against that service's real app booted on port 0. `app()` is read
 * lazily, after the suite's beforeAll has started it.
 */
export function platformContract(service: string, app: () => StartedApp): void {
  describe(`${service}: platform endpoints`, () => {
    it.each(["/health", "/v1/health"])("%s is public and minimal", async (path) => {
      const res = await fetchJson(`${app().baseUrl}${path}`);
      expect(res.status).toBe(200);
      expect(Object.keys(res.body).sort()).toEqual(["service", "status", "version"]);
      expect(res.body).toMatchObject({ service, status: "ok" });
      expect(String(res.body.version)).toMatch(/^0\.\d+\.\d+$/);
    });

    it.each(["/version", "/v1/version"])("%s answers the version envelope", async (path) => {
      const res = await fetchJson<{
        success: boolean;
        data: Record<string, unknown>;
        meta: Record<string, unknown>;
      }>(`${app().baseUrl}${path}`);
      expect(res.status).toBe(200);
      expect(res.body.success).toBe(true);
      expect(Object.keys(res.body.data).sort()).toEqual([
        "api_version",
        "build",
        "environment",
        "php",
      ]);
      expect(res.body.data.php).toBe(process.version);
      expect(res.body.meta).toMatchObject({ api_version: "v1" });
      expect(String(res.body.meta.request_id)).toMatch(UUID);
    });

    it("answers an unknown route with 404 NOT_FOUND in the error envelope", async () => {
      const res = await fetchJson<{
        success: boolean;
        error: { code: string };
        meta: { request_id: string };
      }>(`${app().baseUrl}/v1/no-such-thing`);
      expect(res.status).toBe(404);
      expect(res.body.success).toBe(false);
      expect(res.body.error.code).toBe("NOT_FOUND");
      expect(res.body.meta.request_id).toMatch(UUID);
    });
  });
}
