import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createMetrics, sampleValue, type Metrics } from "@svc/telemetry";
import { startAuth, type AuthUnderTest } from "./support/harness.ts";

let metrics: Metrics;
let auth: AuthUnderTest;
let client: { id: string; secret: string };

beforeAll(async () => {
  metrics = createMetrics({
    serviceName: "auth",
    serviceVersion: "0.0.0",
    environment: "sandbox",
    otlp: false,
  });
  auth = await startAuth(
    { TOKEN_RATE_IP_BURST: "1000", TOKEN_RATE_CLIENT_BURST: "1000" },
    { meter: metrics.meter },
  );
  const created = await auth.manager.create({ name: "metrics", scopes: ["vacancies:read"] });
  client = { id: created.client.id, secret: created.secret };
});
afterAll(async () => {
  await auth?.close();
  await metrics?.shutdown();
});

describe("auth.token.issuance", () => {
  it("counts token requests by outcome: issued, or the OAuth error answered", async () => {
    const statuses = [
      (await auth.token(client.id, client.secret)).status,
      (
        await auth.token(
          client.id,
          client.secret,
          "grant_type=client_credentials&scope=vacancies%3Aread",
        )
      ).status,
      (await auth.token(client.id, "wrong-secret")).status,
      (await auth.token("no-such-client", client.secret)).status,
      (await auth.token(client.id, client.secret, "grant_type=password")).status,
      (
        await auth.token(
          client.id,
          client.secret,
          "grant_type=client_credentials&scope=webhooks%3Awrite",
        )
      ).status,
    ];
    expect(statuses).toEqual([200, 200, 401, 401, 400, 400]);
    const text = await metrics.scrape();
    const count = (outcome: string) => sampleValue(text, "auth_token_issuance_total", { outcome });
    expect(count("issued")).toBe(2);
    expect(count("invalid_client")).toBe(2);
    expect(count("unsupported_grant_type")).toBe(1);
    expect(count("invalid_scope")).toBe(1);
    // Nothing else was counted, and the request-duration metric saw the same six requests.
    const all = text.split("\n").filter((l) => l.startsWith("auth_token_issuance_total{"));
    expect(all).toHaveLength(4);
    const durations = text
      .split("\n")
      .filter(
        (l) =>
          l.startsWith("http_server_request_duration_count{") &&
          l.includes('http_route="/oauth/token"'),
      );
    expect(durations.reduce((sum, l) => sum + Number(l.split(" ").at(-1)), 0)).toBe(6);
  });
});
