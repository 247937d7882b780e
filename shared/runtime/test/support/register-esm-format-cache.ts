// Preloaded with `node --import` by esm-format-cache.test.ts, as a service's instrument.ts does.
import { registerEsmFormatCache } from "../../src/esm-format-cache.ts";

registerEsmFormatCache();
