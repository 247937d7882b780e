export { build, type BuildResult } from "./build.ts";
