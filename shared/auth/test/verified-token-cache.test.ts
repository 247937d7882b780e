import { beforeAll, describe, expect, it } from "vitest";
import { DependencyUnavailableError, UnauthenticatedError } from "@svc/errors";
import { createTestIssuer, TEST_AUDIENCE, TEST_ISSUER, type TestIssuer } from "@svc/testing";
import {
  createCachedTokenVerifier,
  createTokenVerifier,
  withVerifiedTokenCache,
  type RevocationView,
  type TokenVerifier,
} from "../src/index.ts";

let issuer: TestIssuer;
beforeAll(async () => {
  issuer = await createTestIssuer();
});

function counting(verify: TokenVerifier): TokenVerifier & { calls: number } {
  const wrapped = Object.assign(
    async (authorization: string | undefined) => {
      wrapped.calls++;
      return verify(authorization);
    },
    { calls: 0 },
  );
  return wrapped;
}

describe("withVerifiedTokenCache", () => {
  it("verifies a token once and serves repeats from memory", async () => {
    const inner = counting(
      createTokenVerifier({ keys: issuer.keys, issuer: TEST_ISSUER, audience: TEST_AUDIENCE }),
    );
    const verify = withVerifiedTokenCache(inner);
    const header = `Bearer ${await issuer.mint({ clientId: "c1", scope: "vacancies:read" })}`;
    const first = await verify(header);
    const again = await verify(header);
    expect(again).toBe(first);
    expect(inner.calls).toBe(1);
  });

  it("asks the revocation view on every hit: a revoked client is rejected at once, unknown status is 503", async () => {
    let state: ReturnType<RevocationView["status"]> = "valid";
    const revocation: RevocationView = { status: () => state };
    const verify = createCachedTokenVerifier({
      keys: issuer.keys,
      issuer: TEST_ISSUER,
      audience: TEST_AUDIENCE,
      revocation,
    });
    const header = `Bearer ${await issuer.mint({ clientId: "c2", scope: "vacancies:read" })}`;
    await verify(header);
    state = "revoked";
    await expect(verify(header)).rejects.toBeInstanceOf(UnauthenticatedError);
    state = "unknown";
    await expect(verify(header)).rejects.toBeInstanceOf(DependencyUnavailableError);
    state = "valid";
    await expect(verify(header)).resolves.toMatchObject({ clientId: "c2" });
  });

  it("ends an entry at the token's exp and after maxAgeMs, and never caches a rejected token", async () => {
    let clock = Date.now();
    const inner = counting(
      createTokenVerifier({
        keys: issuer.keys,
        issuer: TEST_ISSUER,
        audience: TEST_AUDIENCE,
        clockToleranceSeconds: 0,
      }),
    );
    const verify = withVerifiedTokenCache(inner, { maxAgeMs: 1_000, now: () => clock });
    const short = `Bearer ${await issuer.mint({ expiresIn: 30 })}`;
    await verify(short);
    clock += 900;
    await verify(short);
    expect(inner.calls).toBe(1);
    clock += 200;
    await verify(short);
    expect(inner.calls).toBe(2);
    const expired = `Bearer ${await issuer.mint({ issuedAt: -7200, expiresIn: 3600 })}`;
    await expect(verify(expired)).rejects.toBeInstanceOf(UnauthenticatedError);
    await expect(verify(expired)).rejects.toBeInstanceOf(UnauthenticatedError);
    expect(inner.calls).toBe(4);
  });

  it("stays within maxEntries", async () => {
    const inner = counting(
      createTokenVerifier({ keys: issuer.keys, issuer: TEST_ISSUER, audience: TEST_AUDIENCE }),
    );
    const verify = withVerifiedTokenCache(inner, { maxEntries: 2 });
    const [a, b, c] = await Promise.all([1, 2, 3].map(async () => `Bearer ${await issuer.mint()}`));
    for (const header of [a, b, c, a]) await verify(header);
    expect(inner.calls).toBe(4); // a was evicted by c
  });
});
