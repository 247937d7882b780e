/**
 * The local stack's shape: every process `npm start` runs, with its port. One place, so the
 * launcher, the system tests and the README agree.
 */
export interface StackProcess {
  name: string;
  /** Workspace folder and entry file, relative to the repository root. */
  cwd: string;
  entry: string;
  port: number | null;
  internalPort: number | null;
}

export const STACK: ReadonlyArray<StackProcess> = [
  { name: "auth", cwd: "services/auth", entry: "src/main.ts", port: 8081, internalPort: 9481 },
  { name: "practices", cwd: "services/practices", entry: "src/main.ts", port: 8082, internalPort: 9482 },
  { name: "vacancies", cwd: "services/vacancies", entry: "src/main.ts", port: 8083, internalPort: 9483 },
  { name: "identity", cwd: "services/identity", entry: "src/main.ts", port: 8084, internalPort: 9484 },
  { name: "webhooks", cwd: "services/webhooks", entry: "src/main.ts", port: 8085, internalPort: 9485 },
  { name: "webhooks-dispatcher", cwd: "services/webhooks", entry: "src/dispatcher-main.ts", port: null, internalPort: 9486 },
  { name: "gateway", cwd: "services/gateway", entry: "src/main.ts", port: 8080, internalPort: null },
];
