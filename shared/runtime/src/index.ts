import { registerEsmFormatCache } from "./esm-format-cache.ts";
import { startIdleHeapRelease } from "./idle-heap-release.ts";

/**
 * The runtime tuning every service process applies in its preload (`src/instrument.ts`, loaded
 * with `node --import`) before anything else loads: the ESM format cache and the idle heap release
 * (two Node 24 costs, see their modules).
 */
export function tuneProcess(): void {
  registerEsmFormatCache();
  startIdleHeapRelease();
}

export { registerEsmFormatCache } from "./esm-format-cache.ts";
export {
  lastResortGc,
  startIdleHeapRelease,
  type IdleHeapRelease,
  type IdleHeapReleaseOptions,
  type LastResortGc,
} from "./idle-heap-release.ts";
export type { MallocTrim } from "./malloc-trim.ts";
export { NODE_FLAGS, RUNTIME_ENV } from "./process-settings.ts";
