/** The database `npm run legacy:check` checks without --url: the one the services read. */
export function checkTargetUrl(): string | undefined {
  return process.env.LEGACY_DATABASE_URL || undefined;
}

/** `mysql://user@host:port/database`: a URL as printed, never with its password. */
export function printable(url: URL): string {
  const user = url.username ? `${decodeURIComponent(url.username)}@` : "";
  return `${url.protocol}//${user}${url.hostname}:${url.port || 3306}${url.pathname}`;
}
