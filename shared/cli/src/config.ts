/** The values of the environment variables a command declares as credentials, to mask them. */
export function environmentValues(names: readonly string[]): Record<string, string | undefined> {
  return Object.fromEntries(names.map((name) => [name, process.env[name]]));
}
