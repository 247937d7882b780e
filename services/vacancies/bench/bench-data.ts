/**
 * The read benchmarks' legacy data: `legacy_bench` at scale 50 (about 100,000 vacancies), seeded
 * when absent; returns its URL.
 */
import { openServerConnection, seedDatabase } from "@svc/sandbox";
import { dateIn } from "@svc/time";

export const BENCH_DATABASE = "legacy_bench";
export const BENCH_SCALE = 50;

export async function ensureBenchData(
  serverUrl: string,
  out: (line: string) => void,
): Promise<string> {
  const connection = await openServerConnection(serverUrl);
  try {
    const options = { seed: 1, scale: BENCH_SCALE, today: dateIn("Europe/Brussels", Date.now()) };
    let result = await seedDatabase(connection, BENCH_DATABASE, options, "if-absent", out);
    if (result.options.scale !== BENCH_SCALE)
      result = await seedDatabase(connection, BENCH_DATABASE, options, "replace", out);
    out(
      `data: ${BENCH_DATABASE} ${result.action} (seed ${result.options.seed}, scale ${result.options.scale}, today ${result.options.today})`,
    );
  } finally {
    await connection.end();
  }
  const url = new URL(serverUrl);
  url.pathname = `/${BENCH_DATABASE}`;
  return url.toString();
}
