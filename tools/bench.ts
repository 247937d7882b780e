// `npm run bench`: runs every benchmark (services/*/bench/*.ts, shared/*/bench/*.ts) one after the
// other on Node 24, shows their tables, and keeps the run in bench/results/latest.md.
// Benchmarks compare against a bare baseline measured in the same run and print ratios.
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";

const root = fileURLToPath(new URL("..", import.meta.url));
const { values } = parseArgs({ options: { only: { type: "string" } } });

function benchFiles(): string[] {
  return ["services", "shared"].flatMap((top) =>
    readdirSync(join(root, top), { withFileTypes: true })
      .filter((d) => d.isDirectory() && existsSync(join(root, top, d.name, "bench")))
      .flatMap((d) =>
        readdirSync(join(root, top, d.name, "bench"))
          .filter((f) => f.endsWith("-bench.ts"))
          .map((f) => join(root, top, d.name, "bench", f)),
      ),
  );
}

const files = benchFiles().filter((f) => !values.only || f.includes(values.only));
const sections: string[] = [`# Benchmark run ${new Date().toISOString()}`, "", `Node ${process.version}, ${files.length} benchmarks.`, ""];
let failures = 0;
for (const file of files) {
  const name = relative(root, file);
  console.log(`\n=== ${name}`);
  const run = spawnSync(process.execPath, [file], { cwd: root, encoding: "utf8", stdio: ["ignore", "pipe", "inherit"], timeout: 15 * 60_000 });
  process.stdout.write(run.stdout ?? "");
  if (run.status !== 0) failures += 1;
  sections.push(`## ${name}`, "", "```", (run.stdout ?? "").trim(), "```", run.status === 0 ? "" : `(exited ${run.status})`, "");
}
mkdirSync(join(root, "bench/results"), { recursive: true });
writeFileSync(join(root, "bench/results/latest.md"), sections.join("\n"));
console.log(`\nwrote bench/results/latest.md (${files.length} benchmarks, ${failures} failed)`);
process.exit(failures > 0 ? 1 : 0);
