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

/**
 * `connections` loops send `make(i)` back to back for `durationMs`; completed requests per second.
 */
export async function throughput(
  origin: string,
  make: (i: number) => Shot,
  options: { connections: number; durationMs: number },
): Promise<Throughput> {
  const pool = new Pool(origin, { connections: options.connections, pipelining: 1 });
  const statuses: Record<number, number> = {};
  let next = 0;
  const started = performance.now();
  const deadline = started + options.durationMs;
  const loop = async () => {
    while (performance.now() < deadline) {
      const status = await send(pool, make(next++));
      statuses[status] = (statuses[status] ?? 0) + 1;
    }
  };
  await Promise.all(Array.from({ length: options.connections }, loop));
  const elapsed = performance.now() - started;
  await pool.close();
  const total = Object.values(statuses).reduce((a, b) => a + b, 0);
  return { perSecond: (total / elapsed) * 1000, total, statuses };
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

/** Latency of each request in microseconds, one at a time over one kept-alive connection. */
export async function latencies(
  origin: string,
  shots: Array<() => Shot>,
  rounds: number,
): Promise<number[][]> {
  const pool = new Pool(origin, { connections: 1, pipelining: 1 });
  const results = shots.map(() => [] as number[]);
  for (let round = 0; round < rounds; round++) {
    for (const [index, shot] of shots.entries()) {
      const started = process.hrtime.bigint();
      const status = await send(pool, shot());
      if (status !== 200) throw new Error(`${shot().path} answered ${status}`);
      results[index]?.push(Number(process.hrtime.bigint() - started) / 1_000);
    }
  }
  await pool.close();
  return results;
}

export function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
}

/** Latencies (µs) of back-to-back requests over one connection until `done()` says stop. */
export async function sampleUntil(
  origin: string,
  shot: () => Shot,
  done: () => boolean,
): Promise<number[]> {
  const pool = new Pool(origin, { connections: 1, pipelining: 1 });
  const samples: number[] = [];
  while (!done()) {
    const started = process.hrtime.bigint();
    const status = await send(pool, shot());
    if (status !== 200) throw new Error(`${shot().path} answered ${status}`);
    samples.push(Number(process.hrtime.bigint() - started) / 1_000);
  }
  await pool.close();
  return samples;
}
