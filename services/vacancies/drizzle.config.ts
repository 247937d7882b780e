import { defineConfig } from "drizzle-kit";

// `npm run db:generate -w @services/vacancies`: SQL migrations for the vacancies schema only.
export default defineConfig({
  dialect: "postgresql",
  schema: "./src/store/schema.ts",
  out: "./drizzle",
  schemaFilter: ["vacancies"],
});
