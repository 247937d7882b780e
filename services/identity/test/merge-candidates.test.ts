import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mergeCandidates } from "../src/domain/merge-candidates.ts";
import { applicationBody, person, startHarness, type Harness } from "./support/harness.ts";

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());

async function newCandidate(): Promise<string> {
  const res = await h.post("/v1/applications", applicationBody(h.newVacancy(), person()));
  return String(res.body.data.candidate_uuid);
}

const merge = (merged: string, into: string) =>
  mergeCandidates({ store: h.store, now: () => new Date() }, merged, into);

const NODE = fileURLToPath(new URL("../../../node_modules/.bin/node", import.meta.url));
const CLI = fileURLToPath(new URL("../src/cli/merge-candidates.ts", import.meta.url));

function runCli(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(NODE, [CLI, ...args], {
      env: { PATH: process.env.PATH, DATABASE_URL: h.databaseUrl },
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}

describe("candidate merge rules", () => {
  it("marks the candidate merged into the target, visible through the API", async () => {
    const [a, b] = [await newCandidate(), await newCandidate()];
    expect(await merge(a, b)).toEqual({ mergedCandidateUuid: a, survivorCandidateUuid: b });
    const res = await h.get(`/v1/candidates/${a}`);
    expect(res.body.data).toMatchObject({
      status: "merged",
      merged_into_candidate_uuid: b,
      updated_at: expect.any(String),
    });
    expect((await h.get(`/v1/candidates/${b}`)).body.data).toMatchObject({
      status: "active",
      merged_into_candidate_uuid: null,
    });
  });

  it("follows a merged target to its survivor instead of pointing at a merged candidate", async () => {
    const [a, b, c] = [await newCandidate(), await newCandidate(), await newCandidate()];
    await merge(b, c);
    expect(await merge(a, b)).toEqual({ mergedCandidateUuid: a, survivorCandidateUuid: c });
    expect((await h.get(`/v1/candidates/${a}`)).body.data.merged_into_candidate_uuid).toBe(c);
  });

  it("refuses to merge a candidate twice, into itself, or into one that leads back to it", async () => {
    const [a, b] = [await newCandidate(), await newCandidate()];
    await expect(merge(a, a)).rejects.toThrow(/cycle/);
    await merge(a, b);
    await expect(merge(a, b)).rejects.toThrow(/already merged/);
    await expect(merge(b, a)).rejects.toThrow(/cycle/);
  });

  it("refuses unknown candidates", async () => {
    const a = await newCandidate();
    await expect(merge(crypto.randomUUID(), a)).rejects.toThrow(/no candidate/);
    await expect(merge(a, crypto.randomUUID())).rejects.toThrow(/no candidate/);
  });
});

describe("candidates:merge command", () => {
  it("merges, then refuses the same merge with exit code 1", async () => {
    const [a, b] = [await newCandidate(), await newCandidate()];
    const done = await runCli([a, b]);
    expect(done).toMatchObject({ code: 0, stdout: `merged candidate ${a} into ${b}\n` });
    const again = await runCli([a, b]);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain("already merged");
  });
});
