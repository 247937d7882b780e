import { describe, expect, it } from "vitest";
import { LOCAL_SEED_TARGET, seedTargetFrom } from "../src/cli/config.ts";

describe("where sandbox:seed writes without --url or --database", () => {
  it("uses the server and database of LEGACY_DATABASE_URL, as the chart's seeding Job sets it", () => {
    expect(seedTargetFrom("mysql://seed%40ops:p%2Fw@mysql.db.svc:3307/legacy_x?ssl=true")).toEqual({
      url: "mysql://seed%40ops:p%2Fw@mysql.db.svc:3307",
      database: "legacy_x",
    });
  });

  it("falls back to the local server and legacy_sandbox when it is unset", () => {
    expect(seedTargetFrom(undefined)).toEqual(LOCAL_SEED_TARGET);
    expect(LOCAL_SEED_TARGET).toEqual({
      url: "mysql://root@127.0.0.1:3306",
      database: "legacy_sandbox",
    });
  });

  it("keeps legacy_sandbox when the URL names no database", () => {
    expect(seedTargetFrom("mysql://root@db:3306/").database).toBe("legacy_sandbox");
  });
});
