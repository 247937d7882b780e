export { runProcess } from "./run-process.ts";
export { exitOnStartupError } from "./start-up-error.ts";
export { legacyReadWarmUp } from "./warm-up.ts";
export type {
  Host,
  InternalSettings,
  LegacySettings,
  NatsResource,
  PgResource,
  PgSettings,
  ProcessSettings,
  ProcessSpec,
  ProcessTask,
  Resources,
  ResourcesFor,
  RevocationSettings,
  Stoppable,
  TokenResource,
  TokenSettings,
} from "./spec.ts";
