// The token bench's one Node client: the first-time token requests, each with its own client's
// Basic credentials, sent once each (token-bench.ts says why wrk and the open loop cannot).
import { Pool } from "undici";

export interface Shot {
  path: string;
  method?: "GET" | "POST";
  headers?: Record<string, string>;
  body?: string;
}

export interface Throughput {
  perSecond: number;
  total: number;
  statuses: Record<number, number>;
}

async function send(pool: Pool, shot: Shot): Promise<number> {
  const res = await pool.request({
    path: shot.path,
    method: shot.method ?? "GET",
    headers: shot.headers ?? {},
    body: shot.body ?? null,
  });
  await res.body.dump();
  return res.statusCode;
}

/** Sends every shot once, `connections` at a time; completed requests per second. */
export async function batch(
  origin: string,
  shots: Shot[],
  connections: number,
): Promise<Throughput> {
  const pool = new Pool(origin, { connections, pipelining: 1 });
  const statuses: Record<number, number> = {};
  let next = 0;
  const started = performance.now();
  const loop = async () => {
    for (let i = next++; i < shots.length; i = next++) {
      const status = await send(pool, shots[i] as Shot);
      statuses[status] = (statuses[status] ?? 0) + 1;
    }
  };
  await Promise.all(Array.from({ length: connections }, loop));
  const elapsed = performance.now() - started;
  await pool.close();
  return { perSecond: (shots.length / elapsed) * 1000, total: shots.length, statuses };
}

export function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
}
