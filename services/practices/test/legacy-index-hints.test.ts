// Index hints only where the index exists: change detection forces the two modification-time
// indexes only when the database has them with the sandbox's columns (looked up once from
// information_schema); otherwise its statement is plain SQL with the same answers.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createConnection } from "mysql2/promise";
import { createLegacyDb, type LegacyDb } from "@svc/db";
import { recordingClient, type TempDatabase } from "@svc/testing";
import { MysqlPracticeFeed } from "../src/source/mysql-practice-feed.ts";
import { seedLegacy } from "./support/harness.ts";

let database: TempDatabase;
let legacy: LegacyDb;
const sent: string[] = [];
const recording: LegacyDb = recordingClient(() => legacy, sent);

/** Two pages of modifications through a fresh feed (a fresh lookup). */
async function modifications() {
  const feed = new MysqlPracticeFeed(recording);
  const first = await feed.modifications("2000-01-01 00:00:00", null, 10);
  return [first, await feed.modifications("2000-01-01 00:00:00", first.at(-1) ?? null, 10)];
}

const forced = () =>
  sent.flatMap((sql) => [...sql.matchAll(/FORCE INDEX \((\w+)\)/g)].map((m) => m[1]));

beforeAll(async () => {
  database = await seedLegacy(0);
  legacy = createLegacyDb({ url: database.url });
});

afterAll(async () => {
  await legacy.close();
  await database.drop();
});

describe("practice change detection's index hints", () => {
  it("force both indexes while they exist, and neither is needed for the same answers", async () => {
    sent.length = 0;
    const before = await modifications();
    expect(before[0]).toHaveLength(10);
    expect(new Set(forced())).toEqual(new Set(["idx_praktijk_gewijzigd", "idx_crm_gewijzigd"]));

    const owner = await createConnection({ uri: database.url });
    try {
      await owner.query("DROP INDEX idx_crm_gewijzigd ON crm_bedrijf");
    } finally {
      await owner.end();
    }
    sent.length = 0;
    expect(await modifications()).toEqual(before);
    expect(new Set(forced())).toEqual(new Set(["idx_praktijk_gewijzigd"]));
  });
});
