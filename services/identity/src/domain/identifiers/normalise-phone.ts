/**
 * Default country for numbers written the national way (a leading trunk 0): Belgium. Changing it
 * changes the lookup key of every such number, so existing candidates would no longer match.
 */
export const DEFAULT_COUNTRY_CODE = "32";

/** National significant number lengths of the countries applicants mostly come from. */
const NATIONAL_LENGTHS: Readonly<Record<string, readonly number[]>> = {
  "32": [8, 9], // BE: 8 for landlines, 9 for mobiles
  "31": [9], // NL
  "33": [9], // FR
};

// Separators people type between digit groups; anything else (letters, "ext", "#", ",") is refused.
const ALLOWED = /^[0-9+\s().\-/]+$/u;

function hasPlausibleLength(international: string): boolean {
  // E.164: at most 15 digits, a country code never starts with 0; 7 digits is the shortest in use.
  if (!/^[1-9]\d{6,14}$/.test(international)) return false;
  for (const [code, lengths] of Object.entries(NATIONAL_LENGTHS)) {
    if (international.startsWith(code)) return lengths.includes(international.length - code.length);
  }
  return true;
}

/**
 * Digits with the country code in front, from the way the number was written; null when unknown.
 */
function internationalDigits(written: string): string | null {
  const digits = written.replace(/\D/g, "");
  if (written.startsWith("+")) return digits;
  if (digits.startsWith("00")) return digits.slice(2);
  if (digits.startsWith("0")) return DEFAULT_COUNTRY_CODE + digits.slice(1);
  // Neither international nor national form: the country cannot be known, so no key is made.
  return null;
}

/**
 * The lookup form of a phone number: E.164 (`+32470123456`). Accepts "+32 470 12 34 56",
 * "0032 470…", "0470/12.34.56" (national, default country BE), "+32 (0)470…" and "+320470…"
 * (a trunk 0 kept by mistake after the Belgian country code). Null when the value is not a
 * plausible number; the application is then resolved by its other identifiers, if any.
 */
export function normalisePhone(raw: string): string | null {
  // NFKC turns full-width digits and plus signs into ASCII ones.
  const written = raw.normalize("NFKC").trim().replace(/\(0\)/g, "");
  if (!ALLOWED.test(written) || written.lastIndexOf("+") > 0) return null;
  let international = internationalDigits(written);
  if (international === null) return null;
  if (international.startsWith(`${DEFAULT_COUNTRY_CODE}0`))
    international = DEFAULT_COUNTRY_CODE + international.slice(DEFAULT_COUNTRY_CODE.length + 1);
  return hasPlausibleLength(international) ? `+${international}` : null;
}
