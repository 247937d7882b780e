/** The client's id and secret as presented (HTTP Basic, RFC 6749 2.3.1). */
export interface ClientCredentials {
  clientId: string;
  secret: string;
}

/** A syntactically valid client-credentials token request (RFC 6749 4.4.2). */
export interface TokenRequest {
  credentials: ClientCredentials;
  /** undefined: the `scope` parameter was absent or empty (then all of the client's scopes). */
  scopes: ReadonlyArray<string> | undefined;
}
