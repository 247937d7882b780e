import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fetchJson, type JsonResponse } from "@svc/testing";
import { median, startAuth, type AuthUnderTest } from "./support/harness.ts";

let auth: AuthUnderTest;
let ip = 0;
/** A caller address of its own (the harness trusts one proxy hop, like the ingress). */
const fromIp = (n: number) => ({ "x-forwarded-for": `203.0.113.${n}` });

beforeAll(async () => {
  auth = await startAuth({
    TOKEN_RATE_IP_BURST: "5",
    TOKEN_RATE_IP_PER_MINUTE: "6",
    TOKEN_RATE_CLIENT_BURST: "3",
    TOKEN_RATE_CLIENT_PER_MINUTE: "6",
  });
});
afterAll(() => auth.close());

async function newClient(name: string): Promise<{ id: string; secret: string }> {
  const { client, secret } = await auth.manager.create({ name, scopes: ["vacancies:read"] });
  return { id: client.id, secret };
}

function expectSlowDown(res: JsonResponse): void {
  expect(res.status).toBe(429);
  expect(res.body).toEqual({ error: "slow_down", error_description: expect.any(String) });
  expect(Number(res.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
  expect(res.headers.get("cache-control")).toBe("no-store");
}

describe("argon2 work is rate-limited per client id and per caller IP", () => {
  it("answers 429 slow_down with Retry-After once a client id's budget is spent, from any address", async () => {
    const target = await newClient("guessed at");
    const answers: number[] = [];
    for (let i = 0; i < 3; i++)
      answers.push((await auth.token(target.id, "wrong", undefined, fromIp(++ip))).status);
    expect(answers).toEqual([401, 401, 401]);
    expectSlowDown(await auth.token(target.id, "wrong", undefined, fromIp(++ip)));
    // The limit is on the presented id, so an unknown id is limited the same way: no existence
    // oracle.
    for (let i = 0; i < 3; i++) await auth.token("cl_unknown", "wrong", undefined, fromIp(++ip));
    expectSlowDown(await auth.token("cl_unknown", "wrong", undefined, fromIp(++ip)));
  });

  it("answers 429 once one address spent its budget, while other addresses go on", async () => {
    const address = fromIp(++ip);
    for (let i = 0; i < 5; i++)
      expect((await auth.token(`cl_sprayed${i}`, "wrong", undefined, address)).status).toBe(401);
    expectSlowDown(await auth.token("cl_sprayed5", "wrong", undefined, address));
    expect((await auth.token("cl_sprayed6", "wrong", undefined, fromIp(++ip))).status).toBe(401);
  });
});

describe("a secret that verified recently does not pay argon2 again", () => {
  it("serves repeats from the proof, much faster than a first verification", async () => {
    const client = await newClient("repeat");
    const others = await Promise.all([0, 1, 2].map((i) => newClient(`first${i}`)));
    const first: number[] = [];
    for (const other of others) {
      const started = performance.now();
      // A wrong secret always pays argon2 (and never leaves a proof): the cost of a first request.
      await auth.token(other.id, "wrong", undefined, fromIp(++ip));
      first.push(performance.now() - started);
    }
    expect((await auth.token(client.id, client.secret, undefined, fromIp(++ip))).status).toBe(200);
    const repeats: number[] = [];
    for (let i = 0; i < 20; i++) {
      const started = performance.now();
      expect((await auth.token(client.id, client.secret, undefined, fromIp(++ip))).status).toBe(
        200,
      );
      repeats.push(performance.now() - started);
    }
    // 20 repeats from one client id: far past its budget of 3, so none of them reached argon2.
    expect(median(repeats)).toBeLessThan(median(first) / 3);
  });

  it("keeps serving a client whose proof is fresh while someone hammers its id with wrong secrets", async () => {
    const client = await newClient("under attack");
    expect((await auth.token(client.id, client.secret, undefined, fromIp(++ip))).status).toBe(200);
    for (let i = 0; i < 5; i++) await auth.token(client.id, "guess", undefined, fromIp(++ip));
    expectSlowDown(await auth.token(client.id, "guess", undefined, fromIp(++ip)));
    expect((await auth.token(client.id, client.secret, undefined, fromIp(++ip))).status).toBe(200);
  });

  it("stops honouring the proof once the secret is rotated: the old secret fails, the new one works", async () => {
    const client = await newClient("rotated");
    expect((await auth.token(client.id, client.secret, undefined, fromIp(++ip))).status).toBe(200);
    expect((await auth.token(client.id, client.secret, undefined, fromIp(++ip))).status).toBe(200);
    const { secret } = await auth.manager.rotate(client.id);
    const old = await auth.token(client.id, client.secret, undefined, fromIp(++ip));
    expect(old.status).toBe(401);
    expect(old.body.error).toBe("invalid_client");
    expect((await auth.token(client.id, secret, undefined, fromIp(++ip))).status).toBe(200);
  });

  it("stops honouring the proof once the client is revoked", async () => {
    const client = await newClient("revoked with proof");
    expect((await auth.token(client.id, client.secret, undefined, fromIp(++ip))).status).toBe(200);
    await auth.manager.revoke(client.id);
    expect((await auth.token(client.id, client.secret, undefined, fromIp(++ip))).status).toBe(401);
  });
});

describe("the argon2 queue is bounded", () => {
  it("refuses work beyond the queue with 503 temporarily_unavailable, and the rest of the API keeps answering", async () => {
    const tight = await startAuth({
      ARGON2_MAX_CONCURRENT: "1",
      ARGON2_MAX_QUEUE: "2",
      TOKEN_RATE_IP_BURST: "1000",
      TOKEN_RATE_CLIENT_BURST: "1000",
    });
    try {
      const flood = Array.from({ length: 40 }, (_, i) => tight.token(`cl_flood${i}`, `guess${i}`));
      const health: number[] = [];
      for (let i = 0; i < 5; i++) {
        const started = performance.now();
        expect((await fetchJson(`${tight.app.baseUrl}/health`)).status).toBe(200);
        health.push(performance.now() - started);
      }
      const answers = await Promise.all(flood);
      const refused = answers.filter((r) => r.status === 503);
      expect(refused.length).toBeGreaterThan(0);
      expect(refused[0]?.body).toEqual({
        error: "temporarily_unavailable",
        error_description: expect.any(String),
      });
      expect(refused[0]?.headers.get("retry-after")).toBe("1");
      expect(answers.every((r) => r.status === 401 || r.status === 503)).toBe(true);
      expect(median(health)).toBeLessThan(100);
    } finally {
      await tight.close();
    }
  });
});
