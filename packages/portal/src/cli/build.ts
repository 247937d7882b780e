// `npm run build -w @integration-service/portal`: the portal alone (the root `npm run build`
// builds it with the bundles).
import { buildPortal, PORTAL_DIST } from "../build/build.ts";

const result = await buildPortal({ force: process.argv.includes("--force") });
console.log(
  result.upToDate
    ? `${PORTAL_DIST}/ is up to date (${result.files.length} files)`
    : `built ${result.files.length} files into ${PORTAL_DIST}/ in ${result.ms} ms (${result.written.length} changed, ${result.removed.length} stale removed)`,
);
