// `npm run legacy:check` against copies of the legacy schema on the real MariaDB: intact, with a
// dropped index, with a renamed column and a changed type, through a read-only and a writable
// account. The CLI runs as the operator runs it; its exit code and report are what is checked.
import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import { fileURLToPath } from "node:url";
import { createConnection, type Connection } from "mysql2/promise";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTempMysqlDatabase, testEnv, type TempDatabase } from "@svc/testing";
import { accountFindings } from "../src/check/legacy-check.ts";
import { applyLegacySchema } from "../src/schema.ts";

const CLI = fileURLToPath(new URL("../src/cli/legacy-check.ts", import.meta.url));

let admin: Connection;
const databases: TempDatabase[] = [];
const users: string[] = [];

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

function check(url: string): Promise<Run> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [CLI, "--url", url],
      { timeout: 30_000, env: { ...process.env, LEGACY_DATABASE_URL: "" } },
      (error, stdout, stderr) =>
        resolve({ code: error ? Number(error.code ?? -1) : 0, stdout, stderr }),
    );
  });
}

/** A copy of the legacy schema (no rows: the check reads only the catalogue), in a database of its own. */
async function schemaCopy(): Promise<string> {
  const database = await createTempMysqlDatabase("legacy_check");
  databases.push(database);
  const connection = await createConnection({ uri: database.url });
  try {
    await applyLegacySchema(connection);
  } finally {
    await connection.end();
  }
  return database.name;
}

/** A MariaDB account with `privileges` on `database`, and its URL (password included). */
async function account(database: string, privileges: string): Promise<string> {
  const user = `lc_${randomBytes(4).toString("hex")}`;
  const password = `pw-${randomBytes(6).toString("hex")}`;
  users.push(user);
  await admin.query(`CREATE USER '${user}'@'%' IDENTIFIED BY '${password}'`);
  await admin.query(`GRANT ${privileges} ON \`${database}\`.* TO '${user}'@'%'`);
  const url = new URL(testEnv.TEST_MYSQL_URL);
  url.username = user;
  url.password = password;
  url.pathname = `/${database}`;
  return url.toString();
}

/** The report lines that mention `text`. */
const linesWith = (run: Run, text: string) =>
  run.stdout.split("\n").filter((line) => line.includes(text));

beforeAll(async () => {
  admin = await createConnection({ uri: testEnv.TEST_MYSQL_URL });
});

afterAll(async () => {
  for (const user of users) await admin.query(`DROP USER IF EXISTS '${user}'@'%'`);
  for (const database of databases) await database.drop();
  await admin.end();
});

describe("npm run legacy:check", () => {
  it("passes the legacy schema through a read-only account, and never prints the password", async () => {
    const database = await schemaCopy();
    const url = await account(database, "SELECT");
    const run = await check(url);
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    expect(linesWith(run, "FAIL")).toEqual([]);
    expect(linesWith(run, "WARN")).toEqual([]);
    expect(linesWith(run, "read-only")).toHaveLength(1);
    expect(linesWith(run, "tbl_vacature.kop_publiek")[0]).toMatch(/^ok\s+vacancies\s+title\s/);
    expect(linesWith(run, "idx_vac_taal")[0]).toMatch(/^ok .*present, forced$/);
    expect(run.stdout).not.toContain(new URL(url).password);
  });

  it("fails a writable account, naming the privilege", async () => {
    const database = await schemaCopy();
    const run = await check(await account(database, "SELECT, INSERT"));
    expect(run.code).toBe(1);
    expect(linesWith(run, "FAIL")).toEqual([
      expect.stringMatching(/not read-only: INSERT on `.+`\.\*$/),
    ]);
  });

  it("fails a renamed column and a changed type, naming the canonical field", async () => {
    const database = await schemaCopy();
    await admin.query(
      `ALTER TABLE \`${database}\`.tbl_vacature RENAME COLUMN kop_publiek TO kop_publiek_oud`,
    );
    await admin.query(
      `ALTER TABLE \`${database}\`.crm_bedrijf MODIFY periode_start VARCHAR(10) NULL`,
    );
    const run = await check(await account(database, "SELECT"));
    expect(run.code).toBe(1);
    expect(linesWith(run, "FAIL")).toEqual([
      expect.stringMatching(
        /^FAIL\s+vacancies\s+title\s+tbl_vacature\.kop_publiek\s+column missing/,
      ),
      expect.stringMatching(
        /^FAIL\s+practices\s+period, active \(secondary\)\s+crm_bedrijf\.periode_start\s+varchar, expected date/,
      ),
    ]);
  });

  it("reports a dropped index as plain SQL, a warning that breaks nothing", async () => {
    const database = await schemaCopy();
    await admin.query(`DROP INDEX idx_vac_taal ON \`${database}\`.tbl_vacature`);
    const run = await check(await account(database, "SELECT"));
    expect(run.code).toBe(0);
    expect(linesWith(run, "WARN")).toEqual([
      expect.stringMatching(
        /^WARN\s+vacancies\s+language\s+tbl_vacature\.idx_vac_taal \(verwijderd, taal\)\s+no idx_vac_taal; plain SQL, no hint, no index leads with those columns/,
      ),
    ]);
  });

  it("answers 3 for an unreachable database and 2 for a URL without a database", async () => {
    const unreachable = await check("mysql://nobody:hunter2-secret@127.0.0.1:1/legacy");
    expect(unreachable.code).toBe(3);
    expect(unreachable.stderr).toContain("cannot connect to mysql://nobody@127.0.0.1:1/legacy");
    expect(unreachable.stderr).not.toContain("hunter2-secret");
    const usage = await check("mysql://root@127.0.0.1:3306");
    expect(usage.code).toBe(2);
  });
});

describe("reading SHOW GRANTS", () => {
  it("counts privileges on the database, its tables and everything, not on other databases", () => {
    const grant = (line: string) => accountFindings([line], "legacy_prod");
    expect(grant("GRANT SELECT ON `legacy_prod`.* TO `svc`@`%`")[0]?.verdict).toBe("ok");
    expect(
      grant("GRANT SELECT, UPDATE (naam) ON `legacy_prod`.`tbl_praktijk` TO `svc`@`%`"),
    ).toEqual([
      { verdict: "fail", found: "not read-only: UPDATE on `legacy_prod`.`tbl_praktijk`" },
    ]);
    expect(grant("GRANT DELETE ON `legacy\\_%`.* TO `svc`@`%`")[0]?.verdict).toBe("fail");
    expect(grant("GRANT ALL PRIVILEGES ON *.* TO `root`@`%`")[0]?.verdict).toBe("fail");
    expect(
      accountFindings(
        [
          "GRANT USAGE ON *.* TO `svc`@`%` IDENTIFIED BY PASSWORD '*0123'",
          "GRANT SELECT ON `legacy_prod`.* TO `svc`@`%`",
          "GRANT INSERT ON `other_db`.* TO `svc`@`%`",
        ],
        "legacy_prod",
      ),
    ).toEqual([{ verdict: "ok", found: "read-only (no privilege beyond reading)" }]);
    expect(grant("GRANT SELECT ON `other_db`.* TO `svc`@`%`")).toContainEqual({
      verdict: "fail",
      found: "no SELECT on legacy_prod or its tables",
    });
  });
});
