/**
 * Node flags of every service process, before its entry point: the launcher, the benchmarks
 * (which measure what runs), and the chart's `image.nodeArgs` should carry the same list. Why each,
 * with the measurements: docs/decisions/process-runtime-settings.md.
 *
 * --max-semi-space-size=16: V8 sizes the young generation from the host's memory and keeps what it
 * grew to; 16 MB (V8's long-standing 64-bit default) keeps a service's resident memory down at no
 * measurable CPU cost.
 *
 * --no-allocation-site-pretenuring: under list load V8 starts allocating the rows' objects in the
 * old generation, where the dead ones keep young strings alive until the next full collection.
 * Not allowed in NODE_OPTIONS, hence a flag on the command line.
 */
export const NODE_FLAGS: ReadonlyArray<string> = [
  "--max-semi-space-size=16",
  "--no-allocation-site-pretenuring",
];

/**
 * glibc allocator settings of every service process; the image sets the same (Dockerfile ENV, and
 * a test compares the two). They keep idle resident memory down and give large blocks back
 * (docs/decisions/process-runtime-settings.md).
 * - MALLOC_ARENA_MAX=2: glibc opens up to 8 arenas per core for threads (libuv's pool, V8's
 *   workers), each keeping its own free memory; two are plenty for one event loop.
 * - MALLOC_MMAP_THRESHOLD_=131072: fixed, so glibc stops raising it after a large block is freed;
 *   blocks of 128 KiB and more are then always mapped, and unmapped when freed.
 * - MALLOC_TRIM_THRESHOLD_=131072: the top of the heap goes back once 128 KiB is free there.
 */
export const RUNTIME_ENV: Readonly<Record<string, string>> = Object.freeze({
  MALLOC_ARENA_MAX: "2",
  MALLOC_MMAP_THRESHOLD_: "131072",
  MALLOC_TRIM_THRESHOLD_: "131072",
});
