import { Writable } from "node:stream";
import { describe, expect, it } from "vitest";
import { createLogger } from "../src/index.ts";

function capture() {
  const lines: string[] = [];
  const destination = new Writable({
    write(chunk, _enc, done) {
      lines.push(String(chunk));
      done();
    },
  });
  return { lines, logger: createLogger({ service: "test", level: "info", destination }) };
}

/** The shape node-postgres gives a refused statement's error (pg's DatabaseError fields). */
function pgError(message: string, fields: Record<string, unknown>): Error {
  return Object.assign(new Error(message), { severity: "ERROR", ...fields });
}

/** The shape drizzle-orm wraps it in (DrizzleQueryError: the statement, its parameters, the cause). */
function queryError(cause: Error, params: unknown[]): Error {
  const query = 'insert into "practices"."crm_accounts" ("crm_id", "name") values ($1, $2)';
  return Object.assign(
    new Error(`Failed query: ${query}\nparams: ${params.join(",")}`, { cause }),
    {
      query,
      params,
    },
  );
}

describe("database errors in logs", () => {
  it("keep the SQLSTATE, the names and the statement, never the values (detail, context, parameters, quoted values)", () => {
    const { lines, logger } = capture();
    const cause = pgError('duplicate key value violates unique constraint "crm_accounts_pkey"', {
      code: "23505",
      table: "crm_accounts",
      constraint: "crm_accounts_pkey",
      detail: "Key (crm_id)=(acc-geheim) already exists.",
      where: "SQL statement with Tandarts Geheim",
    });
    logger.error({ err: queryError(cause, ["acc-geheim", "Tandarts Geheim"]) }, "unhandled error");
    logger.error(
      { error: pgError('invalid input syntax for type date: "0000-01-01"', { code: "22008" }) },
      "x",
    );
    const text = lines.join("");
    for (const value of ["geheim", "Geheim", "0000-01-01"])
      expect(text, value).not.toContain(value);
    expect(text).toContain('unique constraint \\"crm_accounts_pkey\\"');
    expect(text).toContain('insert into \\"practices\\".\\"crm_accounts\\"');
    expect(JSON.parse(lines[1]!).error).toMatchObject({ code: "22008", severity: "ERROR" });
  });

  it("leave other errors as they are", () => {
    const { lines, logger } = capture();
    logger.error({ err: Object.assign(new Error('bad "thing"'), { code: "ECONNREFUSED" }) }, "x");
    expect(JSON.parse(lines[0]!).err).toMatchObject({
      message: 'bad "thing"',
      code: "ECONNREFUSED",
    });
  });
});
