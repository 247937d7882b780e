import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";

/** glibc's malloc_trim(0): true when it gave memory back to the operating system. */
export type MallocTrim = () => boolean;

/**
 * The addon npm builds from native/malloc_trim.c (binding.gyp) on install, and the image holds at
 * the same path (@svc/manifest RUNTIME_FILES). The bundles keep `import.meta.url` pointing here.
 */
const ADDON = fileURLToPath(new URL("../build/Release/malloc_trim.node", import.meta.url));

/**
 * malloc_trim from the addon; undefined where there is none (not Linux, or not built), and the
 * idle release then only collects. Why: docs/decisions/idle-heap-release.md.
 */
export function loadMallocTrim(): MallocTrim | undefined {
  if (process.platform !== "linux" || !existsSync(ADDON)) return undefined;
  return (createRequire(import.meta.url)(ADDON) as { trim: MallocTrim }).trim;
}
