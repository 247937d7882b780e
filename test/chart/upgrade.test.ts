// `helm upgrade` from the release in production (test/chart/upgrade-base) to this checkout: the
// chart of that commit and this one, rendered with the same value sets, change no immutable field
// of an object both have; the migrations the previous release applied are untouched, and the new
// ones only expand the schema, so the previous release's pods keep working while they are
// replaced. docs/developers.md, "Upgrades", states the rule.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPgPool, runMigrations } from "@svc/db";
import { SCHEMA_MIGRATIONS } from "@svc/manifest";
import { createTempPgDatabase, type TempDatabase } from "@svc/testing";
import {
  chartDir,
  render,
  renderChartAt,
  repoRoot,
  valueSets,
  valuesDir,
  type K8sObject,
} from "./support/helm.ts";
import {
  checkoutPaths,
  contractProblems,
  git,
  releaseProblems,
  upgradeBase,
  upgradeProblems,
} from "./support/upgrade.ts";

const base = upgradeBase();
const chartPath = "charts/integration-service";
const fixturesPath = "test/chart/values";

/** Value sets a cluster upgrades with `helm upgrade` (Tilt's dev loop re-applies instead). */
const upgradeSets = Object.entries(valueSets).filter(([name]) => name !== "dev");

let baseDir: string;
let removeBase: () => void = () => {};

beforeAll(async () => {
  const checkout = await checkoutPaths(base, [
    chartPath,
    fixturesPath,
    ...SCHEMA_MIGRATIONS.map((m) => m.folder),
  ]);
  baseDir = checkout.dir;
  removeBase = checkout.remove;
});

afterAll(() => removeBase());

/** The previous chart rendered with those of the set's value files its own tests had. */
function renderBase(files: string[]): Promise<K8sObject[]> {
  const baseFiles = files
    .map((f) =>
      join(baseDir, fixturesPath, f.startsWith(valuesDir) ? f.slice(valuesDir.length) : f),
    )
    .filter((f) => existsSync(f));
  return renderChartAt(join(baseDir, chartPath), baseFiles);
}

describe(`helm upgrade from ${base.slice(0, 12)}`, () => {
  for (const [name, files] of upgradeSets) {
    it(`changes no immutable field and no hook into a release object, with the ${name} values`, async () => {
      const [before, after] = await Promise.all([renderBase(files), render(files)]);
      expect(before.length).toBeGreaterThan(10);
      expect(upgradeProblems(before, after).sort()).toEqual([]);
      expect(releaseProblems(after)).toEqual([]);
    });
  }

  it("finds a changed Deployment selector, a hook taking a release object's name, a plain Job and claimed volumes", async () => {
    const before = await render(valueSets.production);
    const after = structuredClone(before);
    const deployment = after.find((o) => o.kind === "Deployment")!;
    const selector = (deployment.spec as { selector: { matchLabels: Record<string, string> } })
      .selector.matchLabels;
    selector["app.kubernetes.io/component"] = "renamed";
    const policy = after.find((o) => o.kind === "NetworkPolicy")!;
    policy.metadata.annotations = { "helm.sh/hook": "pre-upgrade" };
    const job = after.find((o) => o.kind === "Job")!;
    delete job.metadata.annotations;
    const claim = { apiVersion: "v1", kind: "PersistentVolumeClaim", metadata: { name: "data" } };
    (deployment.spec as Record<string, unknown>).volumeClaimTemplates = [claim];
    after.push(claim);
    expect(upgradeProblems(before, after).sort()).toEqual([
      `Deployment/${deployment.metadata.name}: immutable spec.selector changes`,
      `NetworkPolicy/${policy.metadata.name}: was a release object, is now a hook`,
    ]);
    expect(releaseProblems(after)).toEqual([
      `Deployment/${deployment.metadata.name}: volumeClaimTemplates`,
      `Deployment/${deployment.metadata.name}: selector does not match its pod template`,
      `Job/${job.metadata.name}: a Job that is not a hook`,
      "PersistentVolumeClaim/data: the chart keeps no state",
    ]);
  });
});

describe(`migrations since ${base.slice(0, 12)}`, () => {
  const sqlFiles = (dir: string) =>
    existsSync(dir) ? readdirSync(dir).filter((f) => f.endsWith(".sql")) : [];

  it("keep every migration the previous release applied, unchanged and in its order", () => {
    const changed: string[] = [];
    for (const { folder } of SCHEMA_MIGRATIONS) {
      const before = join(baseDir, folder);
      for (const file of sqlFiles(before)) {
        const now = join(repoRoot, folder, file);
        if (
          !existsSync(now) ||
          readFileSync(now, "utf8") !== readFileSync(join(before, file), "utf8")
        )
          changed.push(`${folder}/${file}`);
      }
      const journal = (dir: string) =>
        existsSync(join(dir, "meta/_journal.json"))
          ? (
              JSON.parse(readFileSync(join(dir, "meta/_journal.json"), "utf8")) as {
                entries: { tag: string; when: number }[];
              }
            ).entries
          : [];
      const old = journal(before);
      expect(journal(join(repoRoot, folder)).slice(0, old.length), folder).toEqual(old);
    }
    expect(changed).toEqual([]);
  });

  it("only expand the schema unless marked as a contract step", () => {
    const found: Record<string, string[]> = {};
    for (const { folder } of SCHEMA_MIGRATIONS) {
      const before = new Set(sqlFiles(join(baseDir, folder)));
      for (const file of sqlFiles(join(repoRoot, folder)).filter((f) => !before.has(f))) {
        const problems = contractProblems(readFileSync(join(repoRoot, folder, file), "utf8"));
        if (problems.length) found[`${folder}/${file}`] = problems;
      }
    }
    expect(found).toEqual({});
  });

  it("recognise the statements that break the previous release's reads and writes", () => {
    const refused = [
      'ALTER TABLE "webhooks"."subscriptions" DROP COLUMN "k8s_uid";',
      'ALTER TABLE "x"."t" DROP CONSTRAINT "t_key";',
      'ALTER TABLE "x"."t" RENAME COLUMN "a" TO "b";',
      'ALTER TABLE "x"."t" RENAME TO "u";',
      'ALTER TABLE "x"."t" ALTER COLUMN "a" SET DATA TYPE bigint;',
      'ALTER TABLE "x"."t" ALTER COLUMN "a" TYPE bigint;',
      'ALTER TABLE "x"."t" ALTER COLUMN "a" SET NOT NULL;',
      'ALTER TABLE "x"."t" ADD COLUMN "c" text NOT NULL;',
      'DROP TABLE "x"."t";',
      'TRUNCATE "x"."t";',
    ];
    for (const sql of refused) expect(contractProblems(sql), sql).not.toEqual([]);
    const accepted = [
      'ALTER TABLE "x"."t" ADD COLUMN "c" text;--> statement-breakpoint\nCREATE INDEX "i" ON "x"."t" ("c");',
      'ALTER TABLE "x"."t" ADD COLUMN "c" integer NOT NULL DEFAULT 0;',
      'ALTER TABLE "x"."t" ALTER COLUMN "a" DROP NOT NULL;',
      'CREATE TABLE "x"."u" ("id" uuid PRIMARY KEY NOT NULL);',
      '-- contract: the previous release no longer reads "a".\nALTER TABLE "x"."t" DROP COLUMN "a";',
      '-- A comment that mentions DROP COLUMN.\nCREATE INDEX "j" ON "x"."t" ("b");',
    ];
    for (const sql of accepted) expect(contractProblems(sql), sql).toEqual([]);
  });

  describe("applied to a database the previous release migrated", () => {
    let database: TempDatabase;
    beforeAll(async () => {
      database = await createTempPgDatabase("upgrade");
    });
    afterAll(async () => {
      await database?.drop();
    });

    it("migrate it to this checkout's schema", async () => {
      for (const { schema, folder } of SCHEMA_MIGRATIONS) {
        const pool = createPgPool({
          url: database.url,
          schema,
          applicationName: "upgrade-test",
          max: 1,
        });
        try {
          const applied = async () =>
            Number(
              (
                await pool.query<{ n: string }>(
                  `SELECT count(*) AS n FROM "${schema}"."__migrations"`,
                )
              ).rows[0]?.n,
            );
          const previous = join(baseDir, folder);
          if (existsSync(previous)) {
            await runMigrations(pool, { schema, migrationsFolder: previous });
            expect(await applied(), schema).toBe(sqlFiles(previous).length);
          }
          await runMigrations(pool, { schema, migrationsFolder: join(repoRoot, folder) });
          expect(await applied(), schema).toBe(sqlFiles(join(repoRoot, folder)).length);
        } finally {
          await pool.end();
        }
      }
    });
  });
});

it("names an upgrade base this clone has", async () => {
  expect((await git(["cat-file", "-t", base])).trim()).toBe("commit");
  expect(chartDir).toBe(join(repoRoot, chartPath));
});
