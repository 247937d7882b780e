// `npm run build`: every process the image runs, bundled into dist/ (@svc/build; production,
// `npm start` and the benchmarks run these bundles).
import { build } from "@svc/build";
import { DIST_DIR } from "@svc/manifest";

const result = await build({ prune: true });
const bundles = result.files.filter((f) => f.endsWith(".js") && !f.includes("/chunks/")).length;
console.log(
  `built ${bundles} bundles and ${result.files.length - bundles} other files into ${DIST_DIR}/ in ${result.ms} ms (${result.written.length} changed, ${result.removed.length} stale removed)`,
);
