/**
 * Status codes from the client library's two error shapes: ApiException (`code`, from the
 * generated APIs) and the Watch helper's Error (`statusCode`).
 */
export function statusCodeOf(err: unknown): number | undefined {
  if (typeof err !== "object" || err === null) return undefined;
  const e = err as { code?: unknown; statusCode?: unknown };
  if (typeof e.code === "number") return e.code;
  if (typeof e.statusCode === "number") return e.statusCode;
  return undefined;
}

export function isNotFound(err: unknown): boolean {
  return statusCodeOf(err) === 404;
}

/** 409: a stale resourceVersion on update (Conflict) or a name taken on create (AlreadyExists). */
export function isConflict(err: unknown): boolean {
  return statusCodeOf(err) === 409;
}

/** 410 Gone: the resourceVersion a watch resumed from was compacted away; relist. */
export function isGone(err: unknown): boolean {
  return statusCodeOf(err) === 410;
}

/**
 * A short, secret-free description for logs. ApiException's message embeds the response body
 * and headers; for a Secret that body could hold the signing secret, so it is never logged.
 */
export function describeError(err: unknown): { status?: number; name: string; message?: string } {
  const status = statusCodeOf(err);
  const name = err instanceof Error ? err.name : typeof err;
  if (status !== undefined) return { status, name, message: reasonOf(err) };
  return {
    name,
    message: err instanceof Error ? err.message.slice(0, 300) : String(err).slice(0, 300),
  };
}

function reasonOf(err: unknown): string | undefined {
  const body = (err as { body?: unknown }).body;
  const parsed = typeof body === "string" ? safeJson(body) : body;
  const reason = (parsed as { reason?: unknown } | undefined)?.reason;
  return typeof reason === "string" ? reason : undefined;
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
