/** RFC 5321 caps a forward path at 256 octets including the angle brackets: 254 for the address. */
const MAX_EMAIL_LENGTH = 254;
// local@label.label…: no whitespace, one "@", a dotted domain without empty labels.
const EMAIL_SHAPE = /^[^\s@]+@(?:[^\s@.]+\.)+[^\s@.]+$/u;

/**
 * The lookup form of an e-mail address: trimmed, lower-cased, Unicode NFC (so "Jan@X.be " and
 * "jan@x.be", or a precomposed and a decomposed "é", give one key). Null when the value cannot be
 * an address at all; the application is then resolved by its other identifiers, if any.
 *
 * Lower-casing the local part is a deliberate simplification: mailbox names are case-sensitive in
 * theory and case-insensitive at every provider candidates use.
 */
export function normaliseEmail(raw: string): string | null {
  const value = raw.trim().toLowerCase().normalize("NFC");
  if (value.length === 0 || value.length > MAX_EMAIL_LENGTH) return null;
  return EMAIL_SHAPE.test(value) ? value : null;
}
