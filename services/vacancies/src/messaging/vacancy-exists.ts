/**
 * The vacancy-exists responder (request/reply over NATS) that the identity service asks before
 * recording an application: `{ uuid }` → `{ exists, practice_id }`. Soft-deleted vacancies do not
 * exist. A request that is not `{ uuid: string }` is answered with code 400 by @svc/messaging.
 */
import { z } from "@svc/config";
import { names, serve, type Logger, type NatsConnection, type Responder } from "@svc/messaging";
import { vacancyExists, type VacancyExistsReply } from "../domain/get-vacancy.ts";
import type { VacancySource } from "../domain/ports.ts";

export const VACANCY_EXISTS_QUEUE = "vacancies";

const request = z.object({ uuid: z.string().max(200) });

export function serveVacancyExists(
  nc: NatsConnection,
  namespace: string,
  source: VacancySource,
  logger: Logger,
): Responder {
  // A failure (SourceUnavailableError when the legacy database cannot be reached) propagates to
  // serve(), which logs it and answers with an error code: the requester gets MessagingRemoteError
  // at once instead of waiting for its timeout, and must not take it for "does not exist".
  return serve<z.infer<typeof request>, VacancyExistsReply>(
    nc,
    names(namespace).rpc.vacancyExists,
    ({ uuid }) => vacancyExists(source, uuid),
    {
      queue: VACANCY_EXISTS_QUEUE,
      logger,
      parse: (data) => request.parse(data),
    },
  );
}
