import { env, parseEnv, z } from "@svc/config";

/**
 * Where the test suites find the real backing services. Defaults are this machine's local
 * services; CI and developers may point elsewhere with these variables.
 */
export const testEnv = parseEnv(
  z.object({
    TEST_PG_URL: env.url("postgres://postgres@127.0.0.1:5432/postgres"),
    TEST_MYSQL_URL: env.url("mysql://root@127.0.0.1:3306"),
    TEST_NATS_URL: env.string("nats://127.0.0.1:4222"),
  }),
  process.env,
);
