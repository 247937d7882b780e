import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fetchJson, type JsonResponse } from "@svc/testing";
import { hashSecret } from "../src/domain/clients/credentials.ts";
import { median, startAuth, type AuthUnderTest } from "./support/harness.ts";

let auth: AuthUnderTest;
let active: { id: string; secret: string };
let revoked: { id: string; secret: string };
let expired: { id: string; secret: string };
// A secret the server would never generate, to exercise every decoding rule of RFC 6749 2.3.1.
const ODD_ID = "fixture_odd-client";
const ODD_SECRET = "pa ss:wo+rd-é%";

beforeAll(async () => {
  // Limits out of the way: this file is about answers, not throttling. No proofs: every request
  // pays argon2.
  auth = await startAuth({
    TOKEN_RATE_IP_BURST: "10000",
    TOKEN_RATE_CLIENT_BURST: "10000",
    TOKEN_PROOF_TTL_MS: "0",
  });
  const make = async (name: string) => {
    const created = await auth.manager.create({ name, scopes: ["vacancies:read"] });
    return { id: created.client.id, secret: created.secret };
  };
  [active, revoked, expired] = await Promise.all([
    make("active"),
    make("revoked"),
    make("expired"),
  ]);
  await auth.manager.revoke(revoked.id);
  await auth.manager.expire(expired.id);
  await auth.store.insert({
    id: ODD_ID,
    name: "odd",
    secretHash: await hashSecret(ODD_SECRET),
    scopes: ["vacancies:read"],
    isCrmMirror: false,
    expiresAt: null,
  });
});
afterAll(() => auth.close());

/** Sends exactly the Authorization value given (already base64'd or deliberately broken). */
function withAuthorization(authorization: string): Promise<JsonResponse> {
  return fetchJson(`${auth.app.baseUrl}/oauth/token`, {
    method: "POST",
    headers: { authorization, "content-type": "application/x-www-form-urlencoded" },
    body: "grant_type=client_credentials",
  });
}

const b64 = (text: string) => Buffer.from(text, "utf8").toString("base64");
/** What strict clients send: every character but letters and digits percent-encoded. */
const encodeAll = (text: string) =>
  [...Buffer.from(text, "utf8")]
    .map((b) =>
      /[A-Za-z0-9]/.test(String.fromCharCode(b))
        ? String.fromCharCode(b)
        : `%${b.toString(16).toUpperCase().padStart(2, "0")}`,
    )
    .join("");

describe("HTTP Basic credentials are form-url-decoded after base64 (RFC 6749 2.3.1)", () => {
  it("accepts a generated secret with '-' and '_' sent as %2D and %5F", async () => {
    const res = await withAuthorization(
      `Basic ${b64(`${encodeAll(active.id)}:${encodeAll(active.secret)}`)}`,
    );
    expect(active.secret).toMatch(/[-_]/);
    expect(res.status).toBe(200);
  });

  it("accepts the same secret sent unencoded (form encoding leaves '-' and '_' alone)", async () => {
    expect((await withAuthorization(`Basic ${b64(`${active.id}:${active.secret}`)}`)).status).toBe(
      200,
    );
  });

  it("decodes '+' as a space, %3A as ':', %2B as '+' and UTF-8 percent-escapes", async () => {
    const formEncoded = new URLSearchParams({ s: ODD_SECRET }).toString().slice(2);
    expect(formEncoded).toContain("+");
    expect(formEncoded).toContain("%3A");
    expect(formEncoded).toContain("%2B");
    expect((await withAuthorization(`Basic ${b64(`${ODD_ID}:${formEncoded}`)}`)).status).toBe(200);
    expect(
      (await withAuthorization(`Basic ${b64(`${encodeAll(ODD_ID)}:${encodeAll(ODD_SECRET)}`)}`))
        .status,
    ).toBe(200);
  });

  it("splits at the first colon only, so an unencoded ':' stays in the secret", async () => {
    const partly = encodeAll(ODD_SECRET).replace("%3A", ":");
    expect((await withAuthorization(`Basic ${b64(`${ODD_ID}:${partly}`)}`)).status).toBe(200);
  });

  it("reads an unencoded '+' as a space, so a literal plus must be sent as %2B", async () => {
    const res = await withAuthorization(
      `Basic ${b64(`${ODD_ID}:${encodeAll(ODD_SECRET).replace("%2B", "+")}`)}`,
    );
    expect(res.status).toBe(401);
    expect(res.body.error).toBe("invalid_client");
  });

  const malformed: Array<[string, string]> = [
    ["characters outside base64", "Basic !!!!"],
    ["an impossible base64 length", "Basic QUJDRE"],
    [
      "bytes that are not UTF-8",
      `Basic ${Buffer.from([0xff, 0xfe, 0x3a, 0x41]).toString("base64")}`,
    ],
    ["no colon", `Basic ${b64("just-an-id")}`],
    ["broken percent-encoding", `Basic ${b64("cl_someone:%ZZ")}`],
    ["an empty Basic value", "Basic "],
  ];
  it.each(malformed)("answers %s with 400 invalid_request", async (_name, authorization) => {
    const res = await withAuthorization(authorization);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: "invalid_request", error_description: expect.any(String) });
  });

  it("answers an empty secret and an empty client id with the one invalid_client response", async () => {
    for (const creds of [`${active.id}:`, `:${active.secret}`]) {
      const res = await withAuthorization(`Basic ${b64(creds)}`);
      expect(res.status).toBe(401);
      expect(res.body.error).toBe("invalid_client");
    }
  });
});

/** The parts of a response a client can see, minus what differs per request by design. */
function visible(res: JsonResponse): {
  status: number;
  headers: Record<string, string>;
  body: string;
} {
  const headers = Object.fromEntries(
    [...res.headers].filter(
      ([name]) => !["date", "x-request-id", "connection", "keep-alive"].includes(name),
    ),
  );
  return { status: res.status, headers, body: res.text };
}

describe("one 401 for every bad client: unknown, wrong secret, revoked and expired look the same", () => {
  const cases = () => ({
    unknown: () => withAuthorization(`Basic ${b64(`cl_${"A".repeat(22)}:${active.secret}`)}`),
    "wrong secret": () => withAuthorization(`Basic ${b64(`${active.id}:${revoked.secret}`)}`),
    revoked: () => withAuthorization(`Basic ${b64(`${revoked.id}:${revoked.secret}`)}`),
    expired: () => withAuthorization(`Basic ${b64(`${expired.id}:${expired.secret}`)}`),
  });

  it("answers all four with a byte-identical 401 invalid_client and a Basic challenge", async () => {
    const answers = await Promise.all(Object.values(cases()).map((send) => send()));
    const [first, ...rest] = answers.map(visible);
    expect(first?.status).toBe(401);
    expect(first?.body).toBe(
      '{"error":"invalid_client","error_description":"client authentication failed"}',
    );
    expect(first?.headers["www-authenticate"]).toBe(
      'Basic realm="integration-service", charset="UTF-8"',
    );
    expect(first?.headers["cache-control"]).toBe("no-store");
    for (const other of rest) expect(other).toEqual(first);
  });

  it("takes about as long for each of them: all pay one argon2 verification", async () => {
    const runs: Record<string, number[]> = {};
    // Round-robin, so load from other test files hits every case alike.
    for (let round = 0; round < 9; round++) {
      for (const [name, send] of Object.entries(cases())) {
        const started = performance.now();
        await send();
        (runs[name] ??= []).push(performance.now() - started);
      }
    }
    const timings = Object.fromEntries(
      Object.entries(runs).map(([name, values]) => [name, median(values)]),
    );
    const values = Object.values(timings);
    // argon2id at 19 MiB, t=2 takes well over 5 ms here; a skipped verification about 1 ms.
    for (const value of values) expect(value, JSON.stringify(timings)).toBeGreaterThan(5);
    expect(Math.max(...values) / Math.min(...values), JSON.stringify(timings)).toBeLessThan(2.5);
  });
});
