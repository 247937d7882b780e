/**
 * Credentials given to a command (a secret option, a secret environment variable, a URL's
 * password) are masked in everything it prints. Secrets a command generates are not known here,
 * so a new client secret is still printed once.
 */
import type { CommandSpec } from "./command.ts";

export const MASK = "***";

/** `scheme://user:password@`: the password of any URL in a text. */
const URL_PASSWORD = /\b([a-z][a-z0-9+.-]*:\/\/[^\s/:@]*):[^\s/@]*@/gi;

/** Shorter values would mask ordinary words; URL passwords of any length are masked above. */
const MIN_SECRET_LENGTH = 4;

/** The parts of a secret value to mask: a URL's password (raw and decoded), else the value. */
function partsOf(value: string): string[] {
  const url = URL.parse(value);
  if (url?.password) return [url.password, decodeURIComponent(url.password)];
  return [value];
}

/** The values of `spec`'s secret options in `argv` (`--name value`, `--name=value`, `-x value`). */
function secretArguments(spec: CommandSpec, argv: readonly string[]): string[] {
  const found: string[] = [];
  const all = [spec, ...Object.values(spec.subcommands ?? {})];
  for (const [name, o] of all.flatMap((s) => Object.entries(s.options ?? {}))) {
    if (!o.secret) continue;
    const flags = [`--${name}`, ...(o.short ? [`-${o.short}`] : [])];
    argv.forEach((arg, i) => {
      if (flags.includes(arg) && argv[i + 1] !== undefined) found.push(argv[i + 1]!);
      const inline = flags.find((f) => arg.startsWith(`${f}=`));
      if (inline) found.push(arg.slice(inline.length + 1));
    });
  }
  return found;
}

export function secretEnvOf(spec: CommandSpec): string[] {
  const subs = Object.values(spec.subcommands ?? {});
  return [...(spec.secretEnv ?? []), ...subs.flatMap(secretEnvOf)];
}

/** A function that masks every credential `spec` declares, as given in `argv` and `env`. */
export function redactor(
  spec: CommandSpec,
  argv: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
): (text: string) => string {
  const values = [
    ...secretArguments(spec, argv),
    ...secretEnvOf(spec).map((name) => env[name] ?? ""),
  ];
  const secrets = [...new Set(values.flatMap(partsOf))]
    .filter((s) => s.length >= MIN_SECRET_LENGTH)
    .sort((a, b) => b.length - a.length);
  return (text) =>
    secrets.reduce(
      (masked, secret) => masked.replaceAll(secret, MASK),
      text.replace(URL_PASSWORD, `$1:${MASK}@`),
    );
}
