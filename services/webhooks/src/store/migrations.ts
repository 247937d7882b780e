import { fileURLToPath } from "node:url";

/** drizzle-kit's output for this service's schema (`npm run db:generate -w @services/webhooks`). */
export const MIGRATIONS_FOLDER = fileURLToPath(new URL("../../drizzle", import.meta.url));
