/**
 * The subscriber portal through the local gateway, routed by routes.json as the Ingress routes
 * it: the link's 303 and its cookie, the session, the API behind it and a change with its CSRF
 * token all pass the gateway unchanged. The webhooks API runs in process over the real
 * PostgreSQL and NATS; the gateway is the real one.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fetchJson, silentLogger, startApp, type StartedApp } from "@svc/testing";
import { createApp as createGateway } from "../../services/gateway/src/app.ts";
import {
  fakeResolver,
  startHarness,
  type ApiBody,
  type Harness,
} from "../../services/webhooks/test/support/harness.ts";

let h: Harness;
let gateway: StartedApp;
const CLIENT = "client-portal-gateway";

beforeAll(async () => {
  h = await startHarness({ resolver: fakeResolver({ "hooks.example.com": ["93.184.216.34"] }) });
  gateway = await startApp(
    createGateway({
      config: { GATEWAY_UPSTREAMS: { webhooks: [h.app.baseUrl] } },
      logger: silentLogger(),
    }),
  );
});
afterAll(async () => {
  await gateway?.close();
  await h?.close();
});

describe("the portal through the gateway", () => {
  it("opens a link, keeps the session cookie and answers the API behind it", async () => {
    const created = await h.api(CLIENT, "POST", "/v1/webhooks", {
      url: "https://hooks.example.com/in",
      event_types: ["vacancy.created"],
    });
    const id = created.body.data.webhook_uuid as string;
    const made = await h.api(CLIENT, "POST", "/v1/webhooks/portal-sessions", {});
    expect(made.status).toBe(201);
    const link = new URL(made.body.data.url as string);

    const opened = await fetch(`${gateway.baseUrl}${link.pathname}${link.search}`, {
      redirect: "manual",
    });
    expect(opened.status).toBe(303);
    expect(opened.headers.get("location")).toBe("/portal/");
    expect(opened.headers.get("referrer-policy")).toBe("no-referrer");
    const setCookie = opened.headers.get("set-cookie") ?? "";
    expect(setCookie).toContain("HttpOnly");
    expect(setCookie).toContain("Path=/portal");
    const cookie = /^portal_session=([^;]+)/.exec(setCookie)![1]!;
    const call = (
      method: string,
      path: string,
      headers: Record<string, string> = {},
      body?: unknown,
    ) =>
      fetchJson<ApiBody>(`${gateway.baseUrl}/portal/api${path}`, {
        method,
        headers: {
          cookie: `portal_session=${cookie}`,
          ...(body !== undefined && { "content-type": "application/json" }),
          ...headers,
        },
        ...(body !== undefined && { body: JSON.stringify(body) }),
      });

    const session = await call("GET", "/session");
    expect(session.status).toBe(200);
    expect(session.body.data.client_id).toBe(CLIENT);
    const listed = await call("GET", "/v1/webhooks");
    expect(listed.body.data.map((s: { webhook_uuid: string }) => s.webhook_uuid)).toEqual([id]);
    const changed = await call(
      "PATCH",
      `/v1/webhooks/${id}`,
      { "x-csrf-token": session.body.data.csrf_token, origin: h.config.PUBLIC_BASE_URL },
      { enabled: false },
    );
    expect(changed.status).toBe(200);
    expect(changed.body.data.enabled).toBe(false);

    const page = await fetch(`${gateway.baseUrl}/portal/`, { headers: { accept: "text/html" } });
    expect(page.status).toBe(200);
    expect(page.headers.get("content-security-policy")).toContain("frame-ancestors 'none'");
    const reused = await fetch(`${gateway.baseUrl}${link.pathname}${link.search}`, {
      redirect: "manual",
    });
    expect(reused.status).toBe(410);
  });
});
