/**
 * vitest setup file of the quick lane (TEST_LANE=quick, vitest.config.ts): a test that starts a
 * process beside it fails here, naming the call, so a file the lane's static rule
 * (test/support/test-lanes.ts) let through cannot slow the lane down unnoticed.
 */
import childProcess from "node:child_process";
import { syncBuiltinESMExports } from "node:module";
import { STARTERS } from "./test-lanes.ts";

for (const name of STARTERS) {
  const refuse = (command: unknown) => {
    throw new Error(
      `${name}(${String(command)}): a quick test may not start a process beside it; ` +
        "test/support/test-lanes.ts puts a file that imports it in the full lane only",
    );
  };
  (childProcess as unknown as Record<string, unknown>)[name] = refuse;
}
syncBuiltinESMExports();
