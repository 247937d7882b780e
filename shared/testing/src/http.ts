import type { RequestListener } from "node:http";
import { createLogger, type Logger } from "@svc/logging";
import { listen } from "@svc/http";

/** A logger that writes nothing, for apps under test. */
export function silentLogger(service = "test"): Logger {
  return createLogger({ service, level: "silent" });
}

export interface StartedApp {
  baseUrl: string;
  port: number;
  close(): Promise<void>;
}

/** Boots a real app on a free loopback port, the way main.ts does, and returns its address. */
export async function startApp(handler: RequestListener): Promise<StartedApp> {
  const running = await listen(handler, 0, "127.0.0.1");
  return {
    baseUrl: `http://127.0.0.1:${running.port}`,
    port: running.port,
    close: () => running.close(1_000),
  };
}

export interface JsonResponse<T = Record<string, unknown>> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

/** fetch + JSON body, without throwing on error statuses. */
export async function fetchJson<T = Record<string, unknown>>(
  url: string,
  init: RequestInit = {},
): Promise<JsonResponse<T>> {
  const res = await fetch(url, init);
  const text = await res.text();
  let body: unknown;
  try {
    body = text === "" ? undefined : JSON.parse(text);
  } catch {
    body = undefined;
  }
  return { status: res.status, headers: res.headers, body: body as T, text };
}
