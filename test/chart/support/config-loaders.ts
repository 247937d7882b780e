// How each deployed process reads its environment at start, by chart component: the chart tests
// feed them rendered environments.
import { loadConfig as authConfig } from "../../../services/auth/src/config.ts";
import { loadConfig as identityConfig } from "../../../services/identity/src/config.ts";
import { loadConfig as practicesConfig } from "../../../services/practices/src/config.ts";
import { loadConfig as vacanciesConfig } from "../../../services/vacancies/src/config.ts";
import {
  loadConfig as webhooksConfig,
  loadDispatcherConfig,
} from "../../../services/webhooks/src/config.ts";

export const CONFIG_LOADERS: Record<string, (env: Record<string, string | undefined>) => unknown> =
  {
    auth: authConfig,
    practices: practicesConfig,
    vacancies: vacanciesConfig,
    identity: identityConfig,
    webhooks: webhooksConfig,
    dispatcher: loadDispatcherConfig,
  };
