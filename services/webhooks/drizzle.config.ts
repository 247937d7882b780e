import { defineConfig } from "drizzle-kit";

// drizzle-kit reads only this service's schema; its SQL lands in drizzle/ (`npm run db:generate`).
export default defineConfig({
  dialect: "postgresql",
  schema: "./src/store/schema.ts",
  out: "./drizzle",
  schemaFilter: ["webhooks"],
});
