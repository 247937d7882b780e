import { NotFoundError } from "@svc/errors";
import { eventsAt } from "./events.ts";
import type { Submission } from "./model.ts";
import type { IdentityStore } from "./ports.ts";

export interface SubmitApplicationDeps {
  store: IdentityStore;
  now: () => Date;
  publicBaseUrl: string;
}

/**
 * Records that an application was submitted (production only). Idempotent: the first call sets
 * the submission time and emits `application.submitted` in the same transaction; later calls
 * return the same record and emit nothing.
 */
export async function submitApplication(
  deps: SubmitApplicationDeps,
  applicationUuid: string,
): Promise<{ submission: Submission; created: boolean }> {
  return deps.store.transaction(async (tx) => {
    // Read in the transaction, not before a wait for a pooled connection.
    const now = deps.now();
    const submittedAt = await tx.markSubmitted(applicationUuid, now);
    if (submittedAt) {
      await tx.enqueue([
        eventsAt(deps.publicBaseUrl, now)("application.submitted", applicationUuid),
      ]);
      return { submission: { applicationUuid, submittedAt }, created: true };
    }
    const existing = await tx.submissionOf(applicationUuid);
    if (!existing?.submittedAt) throw new NotFoundError("no application with this uuid");
    return { submission: { applicationUuid, submittedAt: existing.submittedAt }, created: false };
  });
}
