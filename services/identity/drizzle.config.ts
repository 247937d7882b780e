import { defineConfig } from "drizzle-kit";

// `npm run db:generate -w @services/identity`: SQL migrations for the identity schema only.
export default defineConfig({
  dialect: "postgresql",
  schema: "./src/store/schema.ts",
  out: "./drizzle",
  schemaFilter: ["identity"],
});
