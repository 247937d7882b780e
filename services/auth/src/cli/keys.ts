// `npm run keys -- generate [--kid <kid>]`: prints a new private signing JWK (ES256) for the
// signing-key Secret, to stdout only. A Secret's first key is saved as <kid>.active.jwk.json; a
// rotation's next key as <kid>.published.jwk.json, switched to active once every service knows it
// (docs/platform.md, "Signing keys").
import { runCli, UsageError, type CommandSpec, type Invocation } from "@svc/cli";
import { generateSigningJwk } from "../domain/keys/local-keys.ts";

const NAME = "npm run keys --";

const SPEC: CommandSpec = {
  name: NAME,
  summary: "Signing keys of the auth service.",
  subcommands: {
    generate: {
      name: `${NAME} generate`,
      summary:
        "Prints a new private signing JWK (ES256) for the signing-key Secret on stdout; where to save it on stderr. Writes no file.",
      options: {
        kid: {
          type: "string",
          value: "<kid>",
          description: "the key id: letters, digits, - and _ (default: generated)",
        },
        json: { type: "boolean", description: "print the key id and the key as JSON (below)" },
      },
      json: ['{"kid": "…", "jwk": {"kty": "EC", "crv": "P-256", "kid", "alg": "ES256", …}}'],
      examples: [`${NAME} generate --kid 2027-01`],
    },
  },
};

async function main(call: Invocation): Promise<number> {
  const kid = call.string("kid");
  if (kid !== undefined && !/^[A-Za-z0-9_-]{1,64}$/.test(kid))
    throw new UsageError("--kid takes 1 to 64 letters, digits, - and _");
  const jwk = await generateSigningJwk(kid);
  const id = String(jwk.kid);
  console.error(
    [
      `kid ${id}, for the signing-key Secret (never in version control):`,
      `  the Secret's first key: save it as ${id}.active.jwk.json`,
      `  a rotation's next key: save it as ${id}.published.jwk.json, and rename it to ${id}.active.jwk.json`,
      `  (the old key to <kid>.published.jwk.json) once every service knows it (docs/platform.md, "Signing keys")`,
    ].join("\n"),
  );
  console.log(JSON.stringify(call.flag("json") ? { kid: jwk.kid, jwk } : jwk));
  return 0;
}

process.exitCode = await runCli(SPEC, main);
