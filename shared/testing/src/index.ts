export { testEnv } from "./config.ts";
