export { build, type BuildResult } from "./build.ts";
export { writeIfChanged } from "./write-if-changed.ts";
