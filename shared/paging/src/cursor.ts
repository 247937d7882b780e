/**
 * Opaque list cursors: a position (and whatever else a list must carry from page to page) as
 * base64url JSON. Opaque to clients, not secret: a cursor is read back through `parse`, which must
 * check every field, so a forged or damaged cursor is just a bad parameter.
 */
export const MAX_CURSOR_LENGTH = 1_024;

export function encodeCursor(value: unknown): string {
  return Buffer.from(JSON.stringify(value), "utf8").toString("base64url");
}

/** The value `parse` accepts, or undefined for anything that is not a cursor this list made. */
export function decodeCursor<T>(
  text: string,
  parse: (value: unknown) => T | undefined,
): T | undefined {
  if (text.length === 0 || text.length > MAX_CURSOR_LENGTH || !/^[A-Za-z0-9_-]+$/.test(text))
    return undefined;
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(text, "base64url").toString("utf8"));
  } catch {
    return undefined;
  }
  return parse(value);
}
