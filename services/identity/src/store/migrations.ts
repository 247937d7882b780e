import { fileURLToPath } from "node:url";

/** drizzle-kit's output for this schema (`npm run db:generate -w @services/identity`). */
export const MIGRATIONS_FOLDER = fileURLToPath(new URL("../../drizzle", import.meta.url));
