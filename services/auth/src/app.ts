import type { Meter } from "@opentelemetry/api";
import type { IncomingMessage, RequestListener } from "node:http";
import { RateLimiter, scopesFor, type ClientRevocation } from "@svc/auth";
import { createHttpApp, TOKEN_PATH } from "@svc/http";
import { readOpenApiJson } from "@svc/openapi";
import type { Logger } from "@svc/logging";
import type pg from "pg";
import { PgClientStore } from "./store/pg-client-store.ts";
import { SERVICE_NAME, SERVICE_VERSION, type Config } from "./config.ts";
import type { SigningKeys } from "./domain/keys/signing-keys.ts";
import { Argon2Gate } from "./domain/token/argon2-gate.ts";
import { ClientAuthenticator } from "./domain/token/client-authenticator.ts";
import { ProofCache } from "./domain/token/proof-cache.ts";
import { TokenService } from "./domain/token/token-service.ts";
import { createRouter } from "./http/router.ts";

/** Everything the OAuth 2.0 token service needs, built by main.ts (or a test) and passed in. */
export interface AppDeps {
  /** Records HTTP request durations (served at /metrics on the internal port). */
  meter?: Meter;
  config: Config;
  logger: Logger;
  pool: pg.Pool;
  keys: SigningKeys;
  /** argon2id hash of a random secret (createDummyHash), for unknown client ids. */
  dummyHash: string;
  /** Revocations seen on the bucket: a revoked client's remembered proofs are dropped at once. */
  revocations?: { onRevocation(listener: (revocation: ClientRevocation) => void): void };
  /**
   * The OpenAPI document served at GET /openapi.json; default: the checked-in one of the
   * environment (@svc/openapi).
   */
  openApiJson?: string;
}

function createTokenService(deps: AppDeps, environmentScopes: ReadonlySet<string>): TokenService {
  const { config } = deps;
  const proofs = new ProofCache({ ttlMs: config.TOKEN_PROOF_TTL_MS });
  deps.revocations?.onRevocation((revocation) => proofs.forgetClient(revocation.clientId));
  const authenticator = new ClientAuthenticator({
    store: new PgClientStore(deps.pool),
    proofs,
    gate: new Argon2Gate({
      maxConcurrent: config.ARGON2_MAX_CONCURRENT,
      maxQueue: config.ARGON2_MAX_QUEUE,
    }),
    perIp: new RateLimiter({
      burst: config.TOKEN_RATE_IP_BURST,
      perMinute: config.TOKEN_RATE_IP_PER_MINUTE,
    }),
    perClient: new RateLimiter({
      burst: config.TOKEN_RATE_CLIENT_BURST,
      perMinute: config.TOKEN_RATE_CLIENT_PER_MINUTE,
    }),
    dummyHash: deps.dummyHash,
  });
  return new TokenService({
    authenticator,
    keys: deps.keys,
    environmentScopes,
    issuer: config.TOKEN_ISSUER,
    audience: config.TOKEN_AUDIENCE,
  });
}

/**
 * shared/http parses JSON bodies app-wide, before any route, and answers its parse errors in the
 * /v1 envelope; express skips nested routers while an error is pending, so the token route could
 * not answer them in RFC 6749 form. The token endpoint takes form bodies only: a request to it
 * with another content type loses that header here, passes the JSON parser untouched, and the
 * token route answers invalid_request itself (request id, log line and no-store included).
 */
function keepTokenRequestsFromJsonParser(req: IncomingMessage): void {
  if ((req.url ?? "").split("?")[0] !== TOKEN_PATH) return;
  const type = req.headers["content-type"] ?? "";
  if (!/^application\/x-www-form-urlencoded\s*(;|$)/i.test(type))
    delete req.headers["content-type"];
}

/** Builds the OAuth 2.0 token service's app; never listens (main.ts and the tests do). */
export function createApp(deps: AppDeps): RequestListener {
  const environmentScopes = new Set<string>(scopesFor(deps.config.ENVIRONMENT));
  const app = createHttpApp({
    platform: {
      service: SERVICE_NAME,
      version: SERVICE_VERSION,
      environment: deps.config.ENVIRONMENT,
    },
    logger: deps.logger,
    ...(deps.meter ? { meter: deps.meter } : {}),
    routes: createRouter({
      service: createTokenService(deps, environmentScopes),
      environmentScopes,
      keys: deps.keys,
      openApiJson: deps.openApiJson ?? readOpenApiJson(deps.config.ENVIRONMENT),
      logger: deps.logger,
      meter: deps.meter,
    }),
  });
  // The per-IP limit needs the caller's address, which the ingress (or local gateway) forwards.
  app.set("trust proxy", deps.config.TRUST_PROXY_HOPS);
  return (req, res) => {
    keepTokenRequestsFromJsonParser(req);
    app(req, res);
  };
}
