import { env, httpServerEnvShape, parseEnv, z } from "@svc/config";

/** The only module of the gateway that reads the environment. */
export const SERVICE_NAME = "gateway";

const shape = z.object({
  PORT: env.port(8080),
  LOG_LEVEL: env.logLevel(),
  ...httpServerEnvShape,
  /**
   * service=url pairs, comma-separated; a service with several replicas lists their URLs joined by
   * `|`. Defaults are the local ports `npm start` uses.
   */
  GATEWAY_UPSTREAMS: z
    .string()
    .default(
      "auth=http://127.0.0.1:8081,practices=http://127.0.0.1:8082,vacancies=http://127.0.0.1:8083,identity=http://127.0.0.1:8084,webhooks=http://127.0.0.1:8085",
    )
    .transform((value, ctx) => {
      const map: Record<string, string[]> = {};
      for (const pair of value
        .split(",")
        .map((p) => p.trim())
        .filter(Boolean)) {
        const [name, urls] = pair.split("=");
        const list = (urls ?? "").split("|");
        if (!name || !list.every((url) => URL.canParse(url))) {
          ctx.addIssue({
            code: "custom",
            message: `'${pair}' is not service=url or service=url|url`,
          });
          return z.NEVER;
        }
        map[name] = list;
      }
      return map;
    }),
});

export type Config = ReturnType<typeof loadConfig>;

export function loadConfig(source: Record<string, string | undefined> = process.env) {
  return parseEnv(shape, source);
}
