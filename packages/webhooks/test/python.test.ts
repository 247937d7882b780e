/** The Python module's own unittest suite (standard library only), run with python3. */
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { expect, it } from "vitest";

const PYTHON_DIR = fileURLToPath(new URL("../../webhooks-python", import.meta.url));

it("passes the Python module's unittest suite", () => {
  const run = spawnSync("python3", ["-m", "unittest", "discover", "-s", "tests", "-v"], {
    cwd: PYTHON_DIR,
    encoding: "utf8",
  });
  expect(run.status, run.stderr).toBe(0);
  expect(run.stderr).toMatch(/Ran [1-9]\d* tests/);
  expect(run.stderr).not.toMatch(/skipped/);
});
