import { createHmac } from "node:crypto";
import { normaliseEmail } from "./normalise-email.ts";
import { normalisePhone } from "./normalise-phone.ts";

export type IdentifierKind = "email" | "phone";

/** A keyed hash of one normalised identifier: the only form in which an identifier is kept. */
export interface LookupKey {
  kind: IdentifierKind;
  hash: Buffer;
}

export type IdentifierHasher = (kind: IdentifierKind, normalised: string) => Buffer;

/**
 * HMAC-SHA256 keyed with the secret pepper: a plain hash of an e-mail address or phone number can
 * be reversed by trying every plausible value, a keyed one cannot without the key. The kind is part
 * of the input, so an e-mail and a phone number never share a key.
 */
export function createIdentifierHasher(pepper: string): IdentifierHasher {
  const key = Buffer.from(pepper, "utf8");
  return (kind, normalised) =>
    createHmac("sha256", key).update(`${kind}:${normalised}`, "utf8").digest();
}

export interface CandidateIdentifiers {
  email: string | null;
  phone: string | null;
}

/**
 * The usable identifiers of an application, as lookup keys in precedence order (e-mail first).
 * Identifiers that do not normalise are left out; the raw values go no further than this function.
 */
export function lookupKeysOf(
  identifiers: CandidateIdentifiers,
  hash: IdentifierHasher,
): LookupKey[] {
  const keys: LookupKey[] = [];
  const email = identifiers.email === null ? null : normaliseEmail(identifiers.email);
  if (email !== null) keys.push({ kind: "email", hash: hash("email", email) });
  const phone = identifiers.phone === null ? null : normalisePhone(identifiers.phone);
  if (phone !== null) keys.push({ kind: "phone", hash: hash("phone", phone) });
  return keys;
}
