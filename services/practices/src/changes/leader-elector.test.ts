import { afterAll, describe, expect, it } from "vitest";
import pg from "pg";
import { PgAdvisoryLockElector, SoloElector } from "@svc/events";
import { silentLogger } from "@svc/testing";
import { loadConfig } from "../config.ts";
import { createLeaderElector } from "./leader-elector.ts";

// Never connects: electors only touch the pool once they campaign.
const pool = new pg.Pool({ connectionString: "postgres://nobody@127.0.0.1:1/none" });
afterAll(() => pool.end());
const deps = { pool, logger: silentLogger(), name: "practices-change-detector" };

describe("leader election by configuration", () => {
  it("elects with a PostgreSQL advisory lock unless told otherwise", async () => {
    const config = loadConfig({});
    expect(config.LEADER_ELECTION).toBe("pg");
    expect(await createLeaderElector(config, deps)).toBeInstanceOf(PgAdvisoryLockElector);
  });

  it("runs without election when LEADER_ELECTION is solo", async () => {
    expect(await createLeaderElector(loadConfig({ LEADER_ELECTION: "solo" }), deps)).toBeInstanceOf(SoloElector);
  });

  it("builds a Kubernetes Lease elector held as POD_NAME in POD_NAMESPACE when LEADER_ELECTION is lease", async () => {
    const { LeaseElector } = await import("@svc/k8s");
    const config = loadConfig({ LEADER_ELECTION: "lease", POD_NAME: "practices-7d9f-abcde", POD_NAMESPACE: "integration" });
    expect(await createLeaderElector(config, deps)).toBeInstanceOf(LeaseElector);
  });

  it("refuses lease election without the pod's name and namespace, naming both keys", () => {
    expect(() => loadConfig({ LEADER_ELECTION: "lease" })).toThrow(/POD_NAME[\s\S]*POD_NAMESPACE/);
    expect(() => loadConfig({ LEADER_ELECTION: "zookeeper" })).toThrow(/LEADER_ELECTION/);
  });

  it("reads the detector and relay intervals, with their documented defaults", () => {
    expect(loadConfig({})).toMatchObject({ DETECTOR_INCREMENTAL_MS: 5_000, DETECTOR_SWEEP_MS: 900_000, DETECTOR_EMIT_CREATED_ON_BASELINE: false, RELAY_POLL_MS: 200 });
    expect(loadConfig({ DETECTOR_INCREMENTAL_MS: "1000", DETECTOR_EMIT_CREATED_ON_BASELINE: "true" })).toMatchObject({ DETECTOR_INCREMENTAL_MS: 1_000, DETECTOR_EMIT_CREATED_ON_BASELINE: true });
    expect(() => loadConfig({ DETECTOR_SWEEP_MS: "soon" })).toThrow(/DETECTOR_SWEEP_MS/);
  });
});
