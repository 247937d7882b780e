import { UsageError, type OptionSpec } from "./command.ts";

/** The options of a command that calls the API as a client: where, and with which credentials. */
export const API_CLIENT_OPTIONS = {
  "base-url": {
    type: "string",
    value: "<url>",
    description: "the API (default: $BASE_URL, else http://localhost:8080)",
  },
  "client-id": { type: "string", value: "<id>", description: "default: $CLIENT_ID" },
  "client-secret": {
    type: "string",
    value: "<s>",
    secret: true,
    description: "default: $CLIENT_SECRET",
  },
} as const satisfies Record<string, OptionSpec>;

export interface ApiClientArgs {
  baseUrl: string;
  clientId: string;
  clientSecret: string;
}

/** The API client options, from the command line, else the environment; a UsageError names a bad one. */
export function apiClientArgs(
  call: { string(name: string): string | undefined },
  env: {
    BASE_URL?: string | undefined;
    CLIENT_ID?: string | undefined;
    CLIENT_SECRET?: string | undefined;
  },
): ApiClientArgs {
  const baseUrl = (call.string("base-url") ?? env.BASE_URL ?? "http://localhost:8080").replace(
    /\/+$/,
    "",
  );
  if (!URL.canParse(baseUrl)) throw new UsageError("--base-url must be a URL");
  const clientId = call.string("client-id") ?? env.CLIENT_ID;
  const clientSecret = call.string("client-secret") ?? env.CLIENT_SECRET;
  if (!clientId || !clientSecret)
    throw new UsageError(
      "client credentials are needed: --client-id and --client-secret, or CLIENT_ID and CLIENT_SECRET",
    );
  return { baseUrl, clientId, clientSecret };
}
