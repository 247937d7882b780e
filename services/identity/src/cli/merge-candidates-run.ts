// The work of `npm run candidates:merge` once its command line parsed (merge-candidates.ts).
import { UsageError, type Invocation } from "@svc/cli";
import { createPgPool } from "@svc/db";
import { loadCliConfig } from "../config.ts";
import { mergeCandidates, MergeRefusedError } from "../domain/merge-candidates.ts";
import { UUID_SHAPE } from "../http/validation.ts";
import { identityDb } from "../store/db.ts";
import { PgIdentityStore } from "../store/pg-identity-store.ts";

function config(): ReturnType<typeof loadCliConfig> {
  try {
    return loadCliConfig();
  } catch (err) {
    throw new UsageError((err as Error).message.replace(/\n\s*/g, " "));
  }
}

/** Merges the two candidates of a parsed call; the exit code. */
export async function runMerge(call: Invocation): Promise<number> {
  const [merged, into] = call.args.map((a) => a.toLowerCase()) as [string, string];
  for (const uuid of [merged, into])
    if (!UUID_SHAPE.test(uuid)) throw new UsageError(`not a candidate UUID: ${uuid}`);
  const pool = createPgPool({
    url: config().DATABASE_URL,
    schema: "identity",
    applicationName: "identity-merge-cli",
    max: 1,
  });
  try {
    const result = await mergeCandidates(
      { store: new PgIdentityStore(identityDb(pool)), now: () => new Date() },
      merged,
      into,
    );
    const survivor = result.survivorCandidateUuid;
    call.io.out(
      call.flag("json")
        ? JSON.stringify({
            merged_candidate_uuid: result.mergedCandidateUuid,
            survivor_candidate_uuid: survivor,
          })
        : `merged candidate ${result.mergedCandidateUuid} into ${survivor}${survivor === into ? "" : ` (the survivor of ${into})`}`,
    );
    return 0;
  } catch (err) {
    if (!(err instanceof MergeRefusedError)) throw err;
    call.io.err(`refused: ${err.message}`);
    return 1;
  } finally {
    await pool.end();
  }
}
