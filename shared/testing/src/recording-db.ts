/** The shape of @svc/db's LegacyDb (structural, so this package needs no @svc/db). */
export interface StatementClient {
  query<T>(sql: string, params?: ReadonlyArray<unknown>): Promise<T[]>;
  ping(): Promise<void>;
  openConnections(): Promise<number>;
  close(): Promise<void>;
}

/**
 * A client that appends the text of every statement to `sent` and passes it to `inner()`, the
 * real client, which answers it. Closing it leaves the real client open.
 */
export function recordingClient(inner: () => StatementClient, sent: string[]): StatementClient {
  return {
    query: (sql, params) => {
      sent.push(sql);
      return inner().query(sql, params);
    },
    ping: () => inner().ping(),
    openConnections: () => inner().openConnections(),
    close: async () => undefined,
  };
}
