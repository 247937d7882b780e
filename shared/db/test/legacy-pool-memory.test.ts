import { getHeapStatistics } from "node:v8";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { lastResortGc } from "@svc/runtime";
import { createTempMysqlDatabase, type TempDatabase } from "@svc/testing";
import { createLegacyDb } from "../src/index.ts";

let database: TempDatabase;
beforeAll(async () => {
  database = await createTempMysqlDatabase("legacy_mem");
});
afterAll(() => database.drop());

describe("legacy pool memory", () => {
  it("keeps ten open connections within 2 MB of heap (mysql2's default statement cache took 512 KB each)", async () => {
    // A full collection before each reading, so that the figures count live objects only.
    const collect = lastResortGc();
    const gc = () => collect({ type: "major", execution: "sync", flavor: "last-resort" });
    const db = createLegacyDb({ url: database.url, connectionLimit: 10 });
    try {
      await db.query("SELECT 1"); // the driver's modules and parser code, once
      gc();
      const before = getHeapStatistics().used_heap_size;
      // Ten queries at once open all ten connections of the pool.
      await Promise.all(Array.from({ length: 10 }, () => db.query("SELECT SLEEP(0.05) AS s")));
      gc();
      const grown = getHeapStatistics().used_heap_size - before;
      expect(grown).toBeLessThan(2 * 2 ** 20);
    } finally {
      await db.close();
    }
  });
});
