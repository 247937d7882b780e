import { z } from "zod";
import { DependencyUnavailableError, SourceUnavailableError } from "@svc/errors";
import {
  MessagingRemoteError,
  MessagingUnavailableError,
  request,
  type NatsConnection,
} from "@svc/messaging";
import type { VacancyFacts } from "../domain/model.ts";
import type { VacancyDirectory } from "../domain/ports.ts";

/** The vacancies service's reply on `rpc.vacancyExists`; an empty practice id counts as none. */
const reply = z.object({
  exists: z.boolean(),
  practice_id: z
    .string()
    .nullable()
    .optional()
    .transform((v) => (v ? v : null)),
});

export interface NatsVacancyDirectoryOptions {
  nc: NatsConnection;
  /** `names(NATS_NAMESPACE).rpc.vacancyExists`. */
  subject: string;
  timeoutMs: number;
}

/**
 * Asks the vacancies service whether a vacancy exists (NATS request/reply). No answer in time, no
 * responder, a closed connection, a failing responder or a malformed reply all mean the vacancies
 * service cannot tell us now: 503, never a hang and never a guess. When the vacancies service says
 * its legacy source is the reason, the 503 says so too (LEGACY_SOURCE_UNAVAILABLE).
 */
export class NatsVacancyDirectory implements VacancyDirectory {
  readonly #options: NatsVacancyDirectoryOptions;

  constructor(options: NatsVacancyDirectoryOptions) {
    this.#options = options;
  }

  async find(vacancyUuid: string): Promise<VacancyFacts | null> {
    const { nc, subject, timeoutMs } = this.#options;
    try {
      const answer = await request(
        nc,
        subject,
        { uuid: vacancyUuid },
        { timeoutMs, parse: (d) => reply.parse(d) },
      );
      return answer.exists ? { practiceId: answer.practice_id } : null;
    } catch (err) {
      if (
        err instanceof MessagingRemoteError &&
        err.remoteErrorCode === "LEGACY_SOURCE_UNAVAILABLE"
      )
        throw new SourceUnavailableError(err);
      if (err instanceof MessagingUnavailableError || err instanceof MessagingRemoteError)
        throw new DependencyUnavailableError("the vacancies service", err);
      throw err;
    }
  }
}
