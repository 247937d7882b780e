export {
  SERVICES,
  PROCESSES,
  JOBS,
  HELM_TESTS,
  DEPLOYED_PROCESSES,
  CHART_COMPONENTS,
  SCHEMA_MIGRATIONS,
  serviceOf,
  processNamed,
  type ServiceManifest,
  type ProcessManifest,
  type JobManifest,
} from "./manifest.ts";
export {
  REPO_ROOT,
  DIST_DIR,
  ENTRY_POINTS,
  RUNTIME_FILES,
  bundlePath,
  bundleArgs,
  entryArgs,
  type RunFrom,
} from "./bundles.ts";
