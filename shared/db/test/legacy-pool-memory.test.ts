import { getHeapStatistics, setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTempMysqlDatabase, type TempDatabase } from "@svc/testing";
import { createLegacyDb } from "../src/index.ts";

/** V8's gc() from a fresh context, so that the heap figures below count live objects only. */
function fullGc(): () => void {
  setFlagsFromString("--expose-gc");
  try {
    return runInNewContext("gc") as () => void;
  } finally {
    setFlagsFromString("--no-expose-gc");
  }
}

let database: TempDatabase;
beforeAll(async () => {
  database = await createTempMysqlDatabase("legacy_mem");
});
afterAll(() => database.drop());

describe("legacy pool memory", () => {
  it("keeps ten open connections within 2 MB of heap (mysql2's default statement cache took 512 KB each)", async () => {
    const gc = fullGc();
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
