// `npm run keys -w @services/auth -- generate [--kid <kid>]`: prints a new private signing JWK
// (ES256) for the signing-key Secret. Store it as <kid>.published.jwk.json first, switch it to
// <kid>.active.jwk.json later (service README, "Signing keys and rotation"). Prints to stdout only.
import { parseArgs } from "node:util";
import { generateSigningJwk } from "../domain/keys/local-keys.ts";

const { positionals, values } = parseArgs({
  allowPositionals: true,
  options: { kid: { type: "string" } },
});
if (
  positionals[0] !== "generate" ||
  (values.kid !== undefined && !/^[A-Za-z0-9_-]{1,64}$/.test(values.kid))
) {
  console.error(
    "Usage: npm run keys -w @services/auth -- generate [--kid <letters, digits, - and _>]",
  );
  process.exit(1);
}
const jwk = await generateSigningJwk(values.kid);
console.error(
  `kid ${String(jwk.kid)}: save as ${String(jwk.kid)}.published.jwk.json in the signing-key Secret (never in version control).`,
);
console.log(JSON.stringify(jwk));
