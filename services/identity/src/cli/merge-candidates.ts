// Operator command: merge one candidate identity into another.
//   npm run candidates:merge -- <merged_candidate_uuid> <into_candidate_uuid> [--json]
// Reads DATABASE_URL (default: the local development database). Exit codes: 0 merged,
// 1 refused by the merge rules, 2 wrong usage or configuration.
// The database modules load only once the command line parsed (merge-candidates-run.ts).
import { runCli, type CommandSpec } from "@svc/cli";

const SPEC: CommandSpec = {
  name: "npm run candidates:merge --",
  summary:
    "Merges one candidate identity into another (into its survivor when that one is merged already). Reads DATABASE_URL.",
  args: ["<merged_candidate_uuid>", "<into_candidate_uuid>"],
  options: { json: { type: "boolean", description: "print the result as JSON (shape below)" } },
  secretEnv: ["DATABASE_URL"],
  json: ['{"merged_candidate_uuid": "…", "survivor_candidate_uuid": "…"}'],
  examples: [
    "npm run candidates:merge -- 0b6f6a52-1c1e-4b57-9d2c-7f3f5c9f8a10 5d0c8e4e-2a9b-4f7e-8c61-3e2d1b0a9f87",
  ],
  notes: ["Exit codes: 0 merged, 1 refused by the merge rules, 2 wrong usage or configuration."],
};

process.exitCode = await runCli(SPEC, async (call) =>
  (await import("./merge-candidates-run.ts")).runMerge(call),
);
