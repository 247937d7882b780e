/**
 * The vacancy-exists responder (request/reply over NATS) that the identity service asks before
 * recording an application: `{ uuid }` → `{ exists, practice_id }`. Soft-deleted vacancies do not
 * exist. A request that is not `{ uuid: string }` is answered with code 400 by @svc/messaging.
 */
import { z } from "@svc/config";
import { SourceUnavailableError } from "@svc/errors";
import type { Logger } from "@svc/logging";
import { names, serve, type NatsConnection, type Responder } from "@svc/messaging";
import { vacancyExists, type VacancyExistsReply } from "../domain/get-vacancy.ts";
import type { VacancySource } from "../domain/ports.ts";

export const VACANCY_EXISTS_QUEUE = "vacancies";

const request = z.object({ uuid: z.string().max(200) });

/** The share of the requester's wait the lookup may use: the answer still has to travel back. */
const LOOKUP_SHARE = 0.8;

/**
 * A legacy database that hangs would outlast the requester's wait, and the requester could only
 * guess why; answering LEGACY_SOURCE_UNAVAILABLE before it gives up tells it the real cause.
 */
function withinWait<T>(lookup: Promise<T>, requesterWaitMs: number | undefined): Promise<T> {
  if (requesterWaitMs === undefined) return lookup;
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(
      () => reject(new SourceUnavailableError(new Error("no answer within the requester's wait"))),
      requesterWaitMs * LOOKUP_SHARE,
    );
  });
  lookup.catch(() => undefined);
  return Promise.race([lookup, late]).finally(() => clearTimeout(timer));
}

export function serveVacancyExists(
  nc: NatsConnection,
  namespace: string,
  source: VacancySource,
  logger: Logger,
): Responder {
  // A failure (SourceUnavailableError when the legacy database cannot be reached) propagates to
  // serve(), which logs it and answers with its status and code: the requester gets
  // MessagingRemoteError with LEGACY_SOURCE_UNAVAILABLE at once instead of waiting for its
  // timeout, and must not take it for "does not exist".
  return serve<z.infer<typeof request>, VacancyExistsReply>(
    nc,
    names(namespace).rpc.vacancyExists,
    ({ uuid }, { timeoutMs }) => withinWait(vacancyExists(source, uuid), timeoutMs),
    {
      queue: VACANCY_EXISTS_QUEUE,
      logger,
      parse: (data) => request.parse(data),
    },
  );
}
