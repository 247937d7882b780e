// The portal's build: Preact's JSX, served under /portal/.
import { defineConfig } from "vite";

export default defineConfig({
  root: import.meta.dirname,
  base: "/portal/",
  logLevel: "warn",
  oxc: { jsx: { runtime: "automatic", importSource: "preact" } },
  build: {
    outDir: "dist",
    emptyOutDir: true,
    target: "es2022",
    sourcemap: false,
    // No inline assets: the page's Content-Security-Policy is `default-src 'self'`.
    assetsInlineLimit: 0,
    modulePreload: { polyfill: false },
  },
});
