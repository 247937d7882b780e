import { randomBytes } from "node:crypto";
import pg from "pg";
import { createConnection } from "mysql2/promise";
import { testEnv } from "./config.ts";

export interface TempDatabase {
  name: string;
  url: string;
  drop(): Promise<void>;
}

function uniqueName(prefix: string): string {
  return `${prefix}_${randomBytes(5).toString("hex")}`;
}

function withDatabase(url: string, database: string): string {
  const u = new URL(url);
  u.pathname = `/${database}`;
  return u.toString();
}

/**
 * A fresh PostgreSQL database for one test file, so files run in parallel without sharing state.
 */
export async function createTempPgDatabase(prefix = "t"): Promise<TempDatabase> {
  const name = uniqueName(prefix);
  const admin = new pg.Client({ connectionString: testEnv.TEST_PG_URL });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE "${name}"`);
  } finally {
    await admin.end();
  }
  return {
    name,
    url: withDatabase(testEnv.TEST_PG_URL, name),
    drop: async () => {
      const c = new pg.Client({ connectionString: testEnv.TEST_PG_URL });
      await c.connect();
      try {
        await c.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      } finally {
        await c.end();
      }
    },
  };
}

/** A fresh MySQL/MariaDB database for one test file. */
export async function createTempMysqlDatabase(prefix = "t"): Promise<TempDatabase> {
  const name = uniqueName(prefix);
  const admin = await createConnection({ uri: testEnv.TEST_MYSQL_URL });
  try {
    await admin.query(
      `CREATE DATABASE \`${name}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci`,
    );
  } finally {
    await admin.end();
  }
  return {
    name,
    url: withDatabase(testEnv.TEST_MYSQL_URL, name),
    drop: async () => {
      const c = await createConnection({ uri: testEnv.TEST_MYSQL_URL });
      try {
        await c.query(`DROP DATABASE IF EXISTS \`${name}\``);
      } finally {
        await c.end();
      }
    },
  };
}
