/** Prints a start-up failure for a person and exits 1: the configuration, before a logger exists. */
export function exitOnStartupError(name: string, err: unknown): never {
  const message = err instanceof Error ? err.message : String(err);
  process.stderr.write(`${name}: failed to start: ${message}\n`);
  process.exit(1);
}
