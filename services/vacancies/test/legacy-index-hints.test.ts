// Index hints only where the index exists: the sources look the vacancy table's indexes up once
// (information_schema) and force only those the database has with the sandbox's columns. Against
// a copy of the sandbox schema on the real MariaDB: with every index the statements force them;
// with some dropped, renamed or reshaped they are plain SQL and every answer stays the same.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createConnection, type Connection } from "mysql2/promise";
import { createLegacyDb, type LegacyDb } from "@svc/db";
import { EVERY_INDEX } from "@svc/legacy/reads";
import { recordingClient, type TempDatabase } from "@svc/testing";
import type { VacancyFilter } from "../src/domain/ports.ts";
import { MysqlVacancyFeed } from "../src/source/mysql-vacancy-feed.ts";
import { countStatement, MysqlVacancySource } from "../src/source/mysql-vacancy-source.ts";
import { config, seededLegacyDatabase, TODAY } from "./support/harness.ts";

const asOf = { today: TODAY };
const nl: VacancyFilter = { language: "nl" };
const since = "2020-01-01 00:00:00";
const FILTERS: VacancyFilter[] = [
  {},
  nl,
  { province: "ANT" },
  { status: "open" },
  { published: true },
  { updatedSinceLocal: since },
  { language: "fr", province: "ANT", published: true },
  { status: "open", updatedSinceLocal: since },
];

let database: TempDatabase;
let legacy: LegacyDb;
/** The schema's owner: the services' sessions are read-only. */
let owner: Connection;
/** Every statement the sources sent, in order (the real database answers each). */
const sent: string[] = [];
const recording: LegacyDb = recordingClient(() => legacy, sent);

/** Every read the API and change detection make, through fresh sources (a fresh lookup). */
async function readEverything(): Promise<unknown[]> {
  const shallow = new MysqlVacancySource(recording, config.TIME_ZONE);
  const deep = new MysqlVacancySource(recording, config.TIME_ZONE, { earlyRows: 0 });
  const feed = new MysqlVacancyFeed(recording, config.TIME_ZONE);
  const answers: unknown[] = [];
  for (const filter of FILTERS)
    answers.push(
      await shallow.count(filter, asOf),
      await shallow.page(filter, asOf, { offset: 0, limit: 15 }),
      await deep.page(filter, asOf, { offset: 10, limit: 15 }),
    );
  answers.push(await feed.modifiedSince(since, null, 40, asOf), await feed.live(null, 40, asOf));
  return answers;
}

const forced = () =>
  new Set(sent.flatMap((sql) => [...sql.matchAll(/FORCE INDEX \((\w+)\)/g)].map((m) => m[1])));

beforeAll(async () => {
  database = await seededLegacyDatabase(0.1);
  legacy = createLegacyDb({ url: database.url });
  owner = await createConnection({ uri: database.url });
});

afterAll(async () => {
  await legacy.close();
  await owner.end();
  await database.drop();
});

describe("vacancy index hints", () => {
  let before: unknown[];
  /** A source already running when the indexes change (its lookup done). */
  let running: MysqlVacancySource;
  const firstPage = { offset: 0, limit: 15 };

  it("force every index the statements name when the database has them all", async () => {
    sent.length = 0;
    running = new MysqlVacancySource(recording, config.TIME_ZONE);
    before = await readEverything();
    expect(await running.page(nl, asOf, firstPage)).toEqual(before[FILTERS.indexOf(nl) * 3 + 1]);
    expect(before.filter((a) => Array.isArray(a) && a.length > 0).length).toBeGreaterThan(
      FILTERS.length,
    );
    expect(sent[0]).toContain("information_schema.STATISTICS");
    expect([...forced()].sort()).toEqual([
      "PRIMARY",
      "idx_vac_gepubliceerd",
      "idx_vac_gewijzigd",
      "idx_vac_provincie",
      "idx_vac_status",
      "idx_vac_taal",
    ]);
  });

  it("are plain SQL for an index dropped, renamed or reshaped, with the same answers", async () => {
    const table = `\`${database.name}\`.tbl_vacature`;
    await owner.query(`DROP INDEX idx_vac_taal ON ${table}`);
    await owner.query(`ALTER TABLE ${table} RENAME INDEX idx_vac_provincie TO ix_province`);
    await owner.query(
      `ALTER TABLE ${table} DROP INDEX idx_vac_gewijzigd, ADD INDEX idx_vac_gewijzigd (verwijderd)`,
    );
    // What the statements did before the lookup: a hint naming a missing index fails the read.
    const stale = countStatement({ language: "nl" }, asOf, EVERY_INDEX);
    await expect(legacy.query(stale.sql, stale.params)).rejects.toThrow(/idx_vac_taal/);

    sent.length = 0;
    const after = await readEverything();
    expect([...forced()].sort()).toEqual(["PRIMARY", "idx_vac_gepubliceerd", "idx_vac_status"]);
    sent.length = 0;
    // The running source's hinted read fails once, then it looks the indexes up again.
    expect(await running.page(nl, asOf, firstPage)).toEqual(before[FILTERS.indexOf(nl) * 3 + 1]);
    expect(sent.filter((sql) => sql.includes("information_schema"))).toHaveLength(1);
    expect(sent.filter((sql) => sql.includes("FORCE INDEX (idx_vac_taal)"))).toHaveLength(1);

    expect(after).toEqual(before);
  });

  it("look the indexes up once per source, not per read", async () => {
    sent.length = 0;
    const source = new MysqlVacancySource(recording, config.TIME_ZONE);
    await source.count({ language: "nl" }, asOf);
    await source.page({ language: "nl" }, asOf, { offset: 0, limit: 5 });
    expect(sent.filter((sql) => sql.includes("information_schema"))).toHaveLength(1);
  });
});
