// Operator command: merge one candidate identity into another.
//   npm run candidates:merge -- <merged_candidate_uuid> <into_candidate_uuid>
// Reads DATABASE_URL (default: the local development database). Exit codes: 0 merged,
// 1 refused by the merge rules, 2 wrong usage or configuration.
import { createPgPool } from "@svc/db";
import { loadCliConfig } from "../config.ts";
import { mergeCandidates, MergeRefusedError } from "../domain/merge-candidates.ts";
import { UUID_SHAPE } from "../http/validation.ts";
import { identityDb } from "../store/db.ts";
import { PgIdentityStore } from "../store/pg-identity-store.ts";

const USAGE = "usage: candidates:merge <merged_candidate_uuid> <into_candidate_uuid>";

async function main(args: string[]): Promise<number> {
  const [merged, into] = args;
  if (args.length !== 2 || !merged || !into || !UUID_SHAPE.test(merged) || !UUID_SHAPE.test(into)) {
    console.error(USAGE);
    return 2;
  }
  let config: ReturnType<typeof loadCliConfig>;
  try {
    config = loadCliConfig();
  } catch (err) {
    console.error((err as Error).message);
    return 2;
  }
  const pool = createPgPool({
    url: config.DATABASE_URL,
    schema: "identity",
    applicationName: "identity-merge-cli",
    max: 1,
  });
  try {
    const result = await mergeCandidates(
      { store: new PgIdentityStore(identityDb(pool)), now: () => new Date() },
      merged.toLowerCase(),
      into.toLowerCase(),
    );
    const via =
      result.survivorCandidateUuid === into.toLowerCase() ? "" : ` (the survivor of ${into})`;
    console.log(
      `merged candidate ${result.mergedCandidateUuid} into ${result.survivorCandidateUuid}${via}`,
    );
    return 0;
  } catch (err) {
    if (!(err instanceof MergeRefusedError)) throw err;
    console.error(`refused: ${err.message}`);
    return 1;
  } finally {
    await pool.end();
  }
}

process.exitCode = await main(process.argv.slice(2));
