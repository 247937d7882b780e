import * as oauth from "oauth4webapi";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startAuth, TEST_TOKEN_ISSUER, type AuthUnderTest } from "./support/harness.ts";

let auth: AuthUnderTest;
let as: oauth.AuthorizationServer;
let client: oauth.Client;
let secret: string;
// The test servers speak plain HTTP on loopback; oauth4webapi insists on https unless told.
const insecure = { [oauth.allowInsecureRequests]: true };

beforeAll(async () => {
  auth = await startAuth();
  const created = await auth.manager.create({
    name: "oauth4webapi",
    scopes: ["vacancies:read", "applications:write"],
  });
  client = { client_id: created.client.id };
  secret = created.secret;
  as = {
    issuer: TEST_TOKEN_ISSUER,
    token_endpoint: `${auth.app.baseUrl}/oauth/token`,
    jwks_uri: `${auth.app.baseUrl}/.well-known/jwks.json`,
  };
});
afterAll(() => auth.close());

describe("an independent OAuth client (oauth4webapi) against the real token endpoint", () => {
  it("obtains a token with client_secret_basic and validates it as an RFC 9068 access token", async () => {
    const response = await oauth.clientCredentialsGrantRequest(
      as,
      client,
      oauth.ClientSecretBasic(secret),
      { scope: "vacancies:read" },
      insecure,
    );
    const tokens = await oauth.processClientCredentialsResponse(as, client, response);
    expect(tokens).toMatchObject({
      token_type: "bearer",
      expires_in: 3600,
      scope: "vacancies:read",
    });

    const request = new Request("https://api.test.invalid/v1/vacancies", {
      headers: { authorization: `Bearer ${tokens.access_token}` },
    });
    const claims = await oauth.validateJwtAccessToken(as, request, "integration-service", {
      ...insecure,
      signingAlgorithms: ["ES256"],
    });
    expect(claims).toMatchObject({
      iss: TEST_TOKEN_ISSUER,
      sub: client.client_id,
      client_id: client.client_id,
      aud: "integration-service",
      scope: "vacancies:read",
    });
    expect(claims.exp - claims.iat).toBe(3600);
  });

  it("sees a wrong secret as a 401 with a Basic challenge and the OAuth error invalid_client", async () => {
    const response = await oauth.clientCredentialsGrantRequest(
      as,
      client,
      oauth.ClientSecretBasic(`${secret}x`),
      {},
      insecure,
    );
    const body = (await response.clone().json()) as Record<string, unknown>;
    const failure = await oauth
      .processClientCredentialsResponse(as, client, response)
      .catch((err: unknown) => err);
    expect(failure).toBeInstanceOf(oauth.WWWAuthenticateChallengeError);
    expect(failure).toMatchObject({
      status: 401,
      cause: [{ scheme: "basic", parameters: { realm: "integration-service", charset: "UTF-8" } }],
    });
    expect(body.error).toBe("invalid_client");
  });

  it("reports an unassigned scope as invalid_scope", async () => {
    const response = await oauth.clientCredentialsGrantRequest(
      as,
      client,
      oauth.ClientSecretBasic(secret),
      { scope: "webhooks:write" },
      insecure,
    );
    await expect(
      oauth.processClientCredentialsResponse(as, client, response),
    ).rejects.toMatchObject({ error: "invalid_scope", status: 400 });
  });
});
