import { afterAll, describe, expect, it } from "vitest";
import pg from "pg";
import { silentLogger } from "@svc/testing";
import { createLeaderElector } from "../src/choose-elector.ts";
import { PgAdvisoryLockElector, SoloElector } from "../src/index.ts";
import { LeaseElector } from "../src/lease-elector.ts";

// Never connects: electors only touch the pool once they campaign.
const pool = new pg.Pool({ connectionString: "postgres://nobody@127.0.0.1:1/none" });
afterAll(() => pool.end());
const deps = { pool, logger: silentLogger(), name: "vacancies-change-detector" };

describe("leader election by configuration", () => {
  it("elects with a PostgreSQL advisory lock when LEADER_ELECTION is pg", async () => {
    expect(await createLeaderElector({ LEADER_ELECTION: "pg" }, deps)).toBeInstanceOf(
      PgAdvisoryLockElector,
    );
  });

  it("runs without election when LEADER_ELECTION is solo", async () => {
    expect(await createLeaderElector({ LEADER_ELECTION: "solo" }, deps)).toBeInstanceOf(
      SoloElector,
    );
  });

  it("builds a Kubernetes Lease elector held as POD_NAME in POD_NAMESPACE when LEADER_ELECTION is lease", async () => {
    const settings = {
      LEADER_ELECTION: "lease" as const,
      POD_NAME: "vacancies-7d9f-abcde",
      POD_NAMESPACE: "integration",
    };
    expect(await createLeaderElector(settings, deps)).toBeInstanceOf(LeaseElector);
  });

  it("refuses lease election without the pod's name and namespace", async () => {
    await expect(createLeaderElector({ LEADER_ELECTION: "lease" }, deps)).rejects.toThrow(
      /POD_NAME and POD_NAMESPACE/,
    );
  });
});
