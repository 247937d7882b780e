import { describe, expect, it } from "vitest";
import { ConfigError, env, installationVersion, parseEnv, z } from "../src/index.ts";

const schema = z.object({
  PORT: env.port(8080),
  DATABASE_URL: env.url(),
  NATS_SERVERS: env.list("nats://127.0.0.1:4222"),
  MIGRATE_ON_START: env.bool(false),
  LOG_LEVEL: env.logLevel(),
});

describe("parseEnv", () => {
  it("applies defaults and coerces types", () => {
    const config = parseEnv(schema, { DATABASE_URL: "postgres://localhost/x" });
    expect(config).toEqual({
      PORT: 8080,
      DATABASE_URL: "postgres://localhost/x",
      NATS_SERVERS: ["nats://127.0.0.1:4222"],
      MIGRATE_ON_START: false,
      LOG_LEVEL: "info",
    });
  });

  it("returns a deeply frozen object", () => {
    const config = parseEnv(schema, {
      DATABASE_URL: "postgres://localhost/x",
      NATS_SERVERS: "a,b",
    });
    expect(Object.isFrozen(config)).toBe(true);
    expect(Object.isFrozen(config.NATS_SERVERS)).toBe(true);
    expect(() => (config.NATS_SERVERS as string[]).push("c")).toThrow(TypeError);
  });

  it("fails listing every bad or missing key by name", () => {
    let error: unknown;
    try {
      parseEnv(schema, { PORT: "99999", MIGRATE_ON_START: "yes", LOG_LEVEL: "loud" });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const keys = (error as ConfigError).issues.map((i) => i.key).sort();
    expect(keys).toEqual(["DATABASE_URL", "LOG_LEVEL", "MIGRATE_ON_START", "PORT"]);
    expect((error as ConfigError).message).toContain("DATABASE_URL: is required but not set");
  });

  it("rejects booleans other than true and false", () => {
    expect(() =>
      parseEnv(schema, { DATABASE_URL: "postgres://x/y", MIGRATE_ON_START: "1" }),
    ).toThrow(/MIGRATE_ON_START: must be true or false/);
  });

  it("reads the installation version from the root package as semver 0.x.y", () => {
    expect(installationVersion).toMatch(/^0\.\d+\.\d+$/);
  });

  it("accepts a time zone the runtime knows and names TIME_ZONE when it does not", () => {
    const zoned = z.object({ TIME_ZONE: env.timeZone("Europe/Brussels") });
    expect(parseEnv(zoned, {})).toEqual({ TIME_ZONE: "Europe/Brussels" });
    expect(parseEnv(zoned, { TIME_ZONE: "America/New_York" }).TIME_ZONE).toBe("America/New_York");
    expect(() => parseEnv(zoned, { TIME_ZONE: "Mars/Olympus" })).toThrow(
      /TIME_ZONE: must be an IANA time zone/,
    );
  });
});
