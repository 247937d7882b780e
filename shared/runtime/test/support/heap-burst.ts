// Child process of idle-heap-release.test.ts: frees a burst of objects, then spends a while in one
// way, then reports its resident memory, its event-loop utilisation meanwhile and how many
// releases ran. argv[2]:
//   idle     the loop waits on a timer
//   busy     the loop computes in 20 ms slices, like steady traffic
//   waiting  the loop is blocked in 20 ms slices without using the CPU (Atomics.wait), as a timer
//            callback on a loaded machine waits for a core: busy for the loop, idle for the CPU
//   twice    a second burst once the first was released
//   native   the burst is of Buffers (glibc's heap, not V8's), every 50th kept, so the free pages
//            lie between live ones where free() cannot return them; argv[3] "notrim" releases
//            without malloc_trim
import { performance } from "node:perf_hooks";
import { startIdleHeapRelease } from "../../src/idle-heap-release.ts";

const mb = () => process.memoryUsage.rss() / 1048576;
const mode = process.argv[2];
const release = startIdleHeapRelease({
  everyMs: 200,
  ...(process.argv[3] === "notrim" && { trim: null }),
});
const holder: { burst: unknown[] | null; kept: Buffer[] } = { burst: null, kept: [] };
const nativeBurst = () => {
  holder.burst = [];
  for (let i = 0; i < 3_000; i++) {
    const b = Buffer.allocUnsafeSlow(32 * 1024).fill(i & 0xff);
    if (i % 50 === 49) holder.kept.push(b);
    else holder.burst.push(b);
  }
  const peak = mb();
  holder.burst = null;
  return peak;
};
const burst = () => {
  holder.burst = [];
  for (let i = 0; i < 200; i++)
    holder.burst.push(Array.from({ length: 10_000 }, (_, j) => ({ i, s: `x${j}` })));
  const peak = mb();
  holder.burst = null; // everything above is garbage from here on
  return peak;
};
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function spend(ms: number): Promise<void> {
  const until = Date.now() + ms;
  if (mode === "busy") {
    while (Date.now() < until) {
      const slice = Date.now() + 20;
      while (Date.now() < slice) Math.sqrt(Math.random());
      await new Promise((r) => setImmediate(r));
    }
  } else if (mode === "waiting") {
    const cell = new Int32Array(new SharedArrayBuffer(4));
    while (Date.now() < until) {
      Atomics.wait(cell, 0, 0, 20);
      await new Promise((r) => setImmediate(r));
    }
  } else {
    await sleep(until - Date.now());
  }
}

const peak = mode === "native" ? nativeBurst() : burst();
const elu = performance.eventLoopUtilization();
await spend(2_000);
const utilization = performance.eventLoopUtilization(elu).utilization;
let secondPeak: number | undefined;
if (mode === "twice") {
  const deadline = Date.now() + 10_000;
  while (release.releases() < 1 && Date.now() < deadline) await sleep(50);
  secondPeak = burst();
  const again = Date.now() + 10_000;
  while (release.releases() < 2 && Date.now() < again) await sleep(50);
}
process.stdout.write(
  JSON.stringify({
    peak,
    secondPeak,
    after: mb(),
    utilization,
    releases: release.releases(),
    gcExposed: typeof (globalThis as { gc?: unknown }).gc,
  }),
);
release.stop();
