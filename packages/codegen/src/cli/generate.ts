/** `npm run generate` writes the generated modules; `-- --check` lists those out of date. */
import { writeFileSync } from "node:fs";
import { generatedFiles, staleFiles } from "../generate.ts";

if (process.argv.includes("--check")) {
  const stale = await staleFiles();
  for (const file of stale) console.error(`${file} differs from the OpenAPI document`);
  process.exitCode = stale.length === 0 ? 0 : 1;
} else {
  for (const { file, text } of await generatedFiles()) writeFileSync(file, text);
}
