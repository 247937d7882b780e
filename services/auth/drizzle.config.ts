import { defineConfig } from "drizzle-kit";

// `npm run db:generate -w @services/auth`: SQL migrations for the auth schema into drizzle/.
export default defineConfig({
  dialect: "postgresql",
  schema: "./src/store/schema.ts",
  out: "./drizzle",
  schemaFilter: ["auth"],
});
