/**
 * docs/api-clients.md, run as a reader runs it: every `sh tested` block in order in one shell
 * session (bash -euo pipefail, one working directory, variables carried from block to block)
 * against a private stack started as `npm start` starts it, each output compared with the
 * response the guide shows after the command. A failure names the guide's block.
 */
import { execFileSync } from "node:child_process";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startPrivateStack, type PrivateStack } from "../support/private-stack.ts";
import { guideSteps, unattachedResponses } from "./support/guide-steps.ts";
import { blockLabel, fencedBlocks } from "./support/markdown.ts";
import { parseHttp, responseProblems } from "./support/same-shape.ts";
import { ShellSession } from "./support/shell-session.ts";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const GUIDE = join(ROOT, "docs/api-clients.md");
const blocks = fencedBlocks(GUIDE);
const steps = guideSteps(blocks);
const label = (block: (typeof blocks)[number]) => blockLabel(block, ROOT);

let stack: PrivateStack;
let workDir: string;
let session: ShellSession;
let failed: string | undefined;

beforeAll(async () => {
  // The guide's commands use curl and jq; the test installs nothing.
  for (const tool of ["curl", "jq", "openssl"])
    execFileSync("bash", ["-c", `command -v ${tool}`], { stdio: "ignore" });
  stack = await startPrivateStack();
  // The reader's repository root: `npm start` keeps the demo client in .local/demo-client.json.
  workDir = await mkdtemp(join(tmpdir(), "docs-api-clients-"));
  await mkdir(join(workDir, ".local"));
  await writeFile(
    join(workDir, ".local", "demo-client.json"),
    `${JSON.stringify({ client_id: stack.demoClient.clientId, client_secret: stack.demoClient.clientSecret }, null, 2)}\n`,
  );
  // HOME is the working directory, so no ~/.curlrc changes what curl does.
  session = new ShellSession(workDir, {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    HOME: workDir,
    LANG: "C.UTF-8",
  });
}, 180_000);

afterAll(async () => {
  await stack?.stop();
  if (workDir) await rm(workDir, { recursive: true, force: true });
});

describe("docs/api-clients.md", () => {
  it("shows every response after a tested command, and shows a 401, a 403, a 404 and a 422", () => {
    expect(unattachedResponses(blocks).map(label)).toEqual([]);
    const statuses = steps
      .filter((s) => s.response?.lang === "http")
      .map((s) => parseHttp(s.response!.code).status.split(" ")[1]);
    for (const status of ["401", "403", "404", "422"]) expect(statuses).toContain(status);
  });

  for (const step of steps) {
    const where = label(step.command);
    it(`${where} runs${step.response ? ` and prints what ${label(step.response)} shows` : ""}`, async (ctx) => {
      // A block that failed may have left the session without what later blocks need; a block
      // whose output differs from the guide ran, so the blocks after it still run.
      if (failed) ctx.skip(`not run: ${failed} failed before it`);
      const run = await session.run(step.command.code);
      // The guide sets the local address (http://localhost:8080); this stack listens elsewhere.
      session.vars.BASE_URL = stack.baseUrl;
      if (run.exitCode !== 0) {
        failed = where;
        throw new Error(
          `${where} exited with ${String(run.exitCode)}\n--- stderr:\n${run.stderr}\n--- stdout:\n${run.stdout}`,
        );
      }
      if (step.response) {
        const problems = responseProblems(step.response.lang, step.response.code, run.stdout);
        if (problems.length > 0)
          throw new Error(
            `${where}: the output differs from ${label(step.response)}:\n${problems.join("\n")}\n--- output:\n${run.stdout}`,
          );
      }
    });
  }
});
