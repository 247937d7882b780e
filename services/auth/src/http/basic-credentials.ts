import { oauthErrors } from "../domain/token/oauth-error.ts";
import type { ClientCredentials } from "../domain/token/token-request.ts";

const BASIC = /^basic +([A-Za-z0-9+/]*={0,2}) *$/i;
const UTF8 = new TextDecoder("utf-8", { fatal: true });

/** application/x-www-form-urlencoded decoding of one value ("+" is a space), strict about "%". */
function formDecode(value: string): string {
  try {
    return decodeURIComponent(value.replaceAll("+", " "));
  } catch {
    throw oauthErrors.invalidRequest("the Basic credentials are not valid form-url-encoding");
  }
}

function base64Decode(encoded: string): string {
  // Padding is optional (some clients drop it); a length of 4n+1 can never be base64.
  if (
    encoded.length === 0 ||
    encoded.length % 4 === 1 ||
    (encoded.includes("=") && encoded.length % 4 !== 0)
  ) {
    throw oauthErrors.invalidRequest("the Basic credentials are not valid base64");
  }
  try {
    return UTF8.decode(Buffer.from(encoded, "base64"));
  } catch {
    throw oauthErrors.invalidRequest("the Basic credentials are not UTF-8");
  }
}

/**
 * RFC 6749 2.3.1: the client id and secret are form-url-encoded, then sent as HTTP Basic user and
 * password (RFC 7617): base64, split at the first colon, then form-url-decoded. Real clients do
 * encode ("%2D", "+"), so decoding is not optional. Returns undefined for another scheme (the
 * caller answers invalid_client); a malformed Basic value is invalid_request.
 */
export function parseBasicCredentials(authorization: string): ClientCredentials | undefined {
  const scheme = /^\S+/.exec(authorization)?.[0] ?? "";
  if (scheme.toLowerCase() !== "basic") return undefined;
  const match = BASIC.exec(authorization);
  if (!match)
    throw oauthErrors.invalidRequest(
      "the Authorization header is not valid HTTP Basic credentials",
    );
  const decoded = base64Decode(match[1] ?? "");
  const colon = decoded.indexOf(":");
  if (colon < 0)
    throw oauthErrors.invalidRequest("the Basic credentials must be client_id:client_secret");
  return {
    clientId: formDecode(decoded.slice(0, colon)),
    secret: formDecode(decoded.slice(colon + 1)),
  };
}
