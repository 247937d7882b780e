import { bySize } from "../../support/test-size.ts";

/**
 * How big a fault-suite run is (test/support/test-size.ts). CI (`npm test`) runs the reduced size;
 * the full size is `FAULT_SUITE=full npx vitest run test/fault`: longer outages, more load, every
 * process killed twice, one at a time.
 */
export interface FaultSize {
  name: "ci" | "full";
  /** How long each backing service stays down. */
  outageMs: number;
  /** How long a database hangs (SIGSTOP); longer than the longest timeout, so the timeouts fire. */
  freezeMs: number;
  /** Read loops through the gateway per read target. */
  readers: number;
  /** Pause between one read loop's requests. */
  readPauseMs: number;
  /** New applications (POST /v1/applications) started per second. */
  applicationsPerSecond: number;
  /** Legacy vacancy rows changed per second. */
  legacyChangesPerSecond: number;
  /**
   * Processes SIGKILLed together, wave after wave; every process is in at least one wave. CI
   * groups processes that serve different requests, to keep the run short.
   */
  killWaves: string[][];
  /** Load kept up after each kill once the process is back. */
  afterKillMs: number;
  /** The whole test file's budget. */
  budgetMs: number;
  /** Applications created in one burst before memory is watched (test/system/memory-return.test.ts). */
  burstApplications: number;
  /** How long the stack is then watched idle, once every process is back under its target. */
  idleSoakMs: number;
}

const PROCESSES = [
  "auth",
  "practices",
  "vacancies",
  "identity",
  "webhooks",
  "webhooks-dispatcher",
  "gateway",
];

const CI: FaultSize = {
  name: "ci",
  outageMs: 4_000,
  freezeMs: 8_000,
  readers: 1,
  readPauseMs: 100,
  applicationsPerSecond: 3,
  legacyChangesPerSecond: 2,
  killWaves: [
    ["auth", "practices", "webhooks-dispatcher"],
    ["vacancies", "webhooks"],
    ["identity"],
    ["gateway"],
  ],
  afterKillMs: 0,
  budgetMs: 240_000,
  burstApplications: 600,
  idleSoakMs: 60_000,
};

const FULL: FaultSize = {
  name: "full",
  outageMs: 15_000,
  freezeMs: 20_000,
  readers: 2,
  readPauseMs: 20,
  applicationsPerSecond: 10,
  legacyChangesPerSecond: 3,
  killWaves: [...PROCESSES, ...PROCESSES].map((name) => [name]),
  afterKillMs: 5_000,
  budgetMs: 900_000,
  burstApplications: 5_000,
  idleSoakMs: 30 * 60_000,
};

export function faultSize(env: NodeJS.ProcessEnv = process.env): FaultSize {
  return bySize({ ci: CI, full: FULL }, env);
}
