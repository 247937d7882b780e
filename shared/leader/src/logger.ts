/**
 * The logging surface this package needs: pino-shaped (merge object first, message second), so a
 * pino logger or child logger can be passed as is without this package depending on pino.
 */
export type Logger = {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
};
