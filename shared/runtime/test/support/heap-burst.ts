// Child process of idle-heap-release.test.ts: frees a burst of objects, optionally keeps the event
// loop busy, then reports its resident memory and how many releases ran. argv[2]: "idle" | "busy".
import { startIdleHeapRelease } from "../../src/idle-heap-release.ts";

const mb = () => process.memoryUsage.rss() / 1048576;
const release = startIdleHeapRelease({ everyMs: 200 });
const holder: { burst: unknown[] | null } = { burst: [] };
for (let i = 0; i < 200; i++)
  holder.burst!.push(Array.from({ length: 10_000 }, (_, j) => ({ i, s: `x${j}` })));
const peak = mb();
holder.burst = null; // everything above is garbage from here on
const until = Date.now() + 2_000;
if (process.argv[2] === "busy") {
  // Busy: the loop is never idle for a whole period (work in 20 ms slices, like steady traffic).
  while (Date.now() < until) {
    const slice = Date.now() + 20;
    while (Date.now() < slice) Math.sqrt(Math.random());
    await new Promise((r) => setImmediate(r));
  }
} else {
  await new Promise((r) => setTimeout(r, until - Date.now()));
}
process.stdout.write(
  JSON.stringify({
    peak,
    after: mb(),
    releases: release.releases(),
    gcExposed: typeof (globalThis as { gc?: unknown }).gc,
  }),
);
release.stop();
