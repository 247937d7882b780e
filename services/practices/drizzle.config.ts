import { defineConfig } from "drizzle-kit";

// `npm run db:generate -w @services/practices`: SQL migrations for the practices schema into drizzle/.
export default defineConfig({
  dialect: "postgresql",
  schema: "./src/store/schema.ts",
  out: "./drizzle",
  schemaFilter: ["practices"],
});
