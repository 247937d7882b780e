// `npm run build`: every process the image runs, bundled into dist/ (@svc/build; production,
// `npm start` and the benchmarks run these bundles), and the subscriber portal's page into
// packages/portal/dist/ (Vite).
import { build } from "@svc/build";
import { DIST_DIR } from "@svc/manifest";
import { buildPortal, PORTAL_DIST } from "@integration-service/portal/build";

const result = await build({ prune: true });
const bundles = result.files.filter((f) => f.endsWith(".js") && !f.includes("/chunks/")).length;
console.log(
  `built ${bundles} bundles and ${result.files.length - bundles} other files into ${DIST_DIR}/ in ${result.ms} ms (${result.written.length} changed, ${result.removed.length} stale removed)`,
);
const portal = await buildPortal();
console.log(
  portal.upToDate
    ? `${PORTAL_DIST}/ is up to date (${portal.files.length} files)`
    : `built the subscriber portal's ${portal.files.length} files into ${PORTAL_DIST}/ in ${portal.ms} ms`,
);
