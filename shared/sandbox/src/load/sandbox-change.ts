/**
 * One change to a sandbox legacy database, made as the primary system makes it, so change
 * detection turns it into an event (`npm run webhooks -- trigger`): the row's modification time is
 * the primary system's wall clock in its zone, not NOW() of a server running in UTC (which would
 * date the change hours back or ahead). Only a database carrying this generator's marker is
 * written to (sandbox-guard.ts).
 */
import { randomBytes, randomUUID } from "node:crypto";
import type { Connection, ResultSetHeader, RowDataPacket } from "mysql2/promise";
import { localOfInstant } from "@svc/time";
import { inspectDatabase, SandboxRefusedError } from "./sandbox-guard.ts";

// What a caller needs besides, without the generator (`@svc/sandbox/changes` loads no faker).
export { openServerConnection } from "./connection.ts";

/** The event each change makes, and what the change is. */
export const SANDBOX_CHANGES = {
  "vacancy.created": "inserts a copy of a vacancy under a new uuid",
  "vacancy.updated": "stamps a vacancy as just modified (its updated_at changes)",
  "vacancy.deleted": "marks the vacancy a trigger created last as deleted (else the newest one)",
  "practice.created": "inserts a CRM-only (secondary) practice under a new id",
  "practice.updated": "changes the alias of a practice's CRM record",
} as const;

export type SandboxChange = keyof typeof SANDBOX_CHANGES;

export function isSandboxChange(type: string): type is SandboxChange {
  return Object.hasOwn(SANDBOX_CHANGES, type);
}

/** What was changed: the entity as the API names it (`entity.id` of the event). */
export interface SandboxChangeResult {
  entityType: "vacancy" | "practice";
  entityId: string;
  /** The modification time written, in the primary system's wall clock. */
  modifiedLocal: string;
}

/** Names of what a trigger inserts, so a later delete picks its own rows first. */
const TRIGGER_PREFIX = "trigger";

/**
 * Makes `change` in `database` (on `connection`), stamped with `now` in `timeZone` (the zone the
 * primary system's DATETIME columns hold, TIME_ZONE of the services). Throws SandboxRefusedError
 * for a database that is not a sandbox, and an Error when it holds no row to change.
 */
export async function makeSandboxChange(
  connection: Connection,
  database: string,
  change: SandboxChange,
  options: { timeZone: string; now?: number },
): Promise<SandboxChangeResult> {
  const state = await inspectDatabase(connection, database);
  if (state.kind !== "sandbox")
    throw new SandboxRefusedError(
      database,
      state.kind === "foreign" ? state.tables : [],
      state.kind === "foreign" ? state.reason : `it is ${state.kind}, not a seeded sandbox`,
    );
  await connection.query(`USE ${connection.escapeId(database)}`);
  const local = localOfInstant(options.now ?? Date.now(), options.timeZone);
  const stamp = `${TRIGGER_PREFIX} ${local}`;
  const one = async (sql: string, params: unknown[] = []): Promise<RowDataPacket | undefined> =>
    (await connection.query<RowDataPacket[]>(sql, params))[0][0];
  const write = async (sql: string, params: unknown[]): Promise<void> => {
    const [result] = await connection.query<ResultSetHeader>(sql, params);
    if (result.affectedRows !== 1) throw new Error(`expected one row changed: ${sql}`);
  };
  const none = (what: string) => new Error(`the sandbox database ${database} has no ${what}`);

  switch (change) {
    case "vacancy.created": {
      const source = await one(
        "SELECT vacature_id FROM tbl_vacature WHERE verwijderd = 0 ORDER BY vacature_id LIMIT 1",
      );
      if (!source) throw none("vacancy to copy");
      const uuid = randomUUID();
      // Every column but the key, the uuid and the times is the source row's.
      const [rows] = await connection.query<RowDataPacket[]>("SHOW COLUMNS FROM tbl_vacature");
      const copied = rows
        .map((r) => String(r.Field))
        .filter(
          (c) =>
            !["vacature_id", "uuid", "naam_intern", "aangemaakt_op", "gewijzigd_op"].includes(c),
        );
      const list = copied.map((c) => connection.escapeId(c)).join(", ");
      await write(
        `INSERT INTO tbl_vacature (uuid, naam_intern, aangemaakt_op, gewijzigd_op, ${list})
         SELECT ?, ?, ?, ?, ${list} FROM tbl_vacature WHERE vacature_id = ?`,
        [uuid, stamp, local, local, source.vacature_id],
      );
      return { entityType: "vacancy", entityId: uuid, modifiedLocal: local };
    }
    case "vacancy.updated": {
      // A vacancy last stamped before now, so the new stamp moves its updated_at (a fixture may
      // carry a time ahead of the clock).
      const row = await one(
        "SELECT uuid FROM tbl_vacature WHERE verwijderd = 0 AND gewijzigd_op < ? ORDER BY vacature_id LIMIT 1",
        [local],
      );
      if (!row) throw none("vacancy stamped before now");
      await write("UPDATE tbl_vacature SET gewijzigd_op = ? WHERE uuid = ?", [local, row.uuid]);
      return { entityType: "vacancy", entityId: String(row.uuid), modifiedLocal: local };
    }
    case "vacancy.deleted": {
      const row =
        (await one(
          "SELECT uuid FROM tbl_vacature WHERE verwijderd = 0 AND naam_intern LIKE ? ORDER BY vacature_id DESC LIMIT 1",
          [`${TRIGGER_PREFIX} %`],
        )) ??
        (await one(
          "SELECT uuid FROM tbl_vacature WHERE verwijderd = 0 ORDER BY vacature_id DESC LIMIT 1",
        ));
      if (!row) throw none("vacancy left to delete");
      // The primary system deletes softly, stamping the row.
      await write("UPDATE tbl_vacature SET verwijderd = 1, gewijzigd_op = ? WHERE uuid = ?", [
        local,
        row.uuid,
      ]);
      return { entityType: "vacancy", entityId: String(row.uuid), modifiedLocal: local };
    }
    case "practice.created": {
      const source = await one(
        `SELECT c.crm_id FROM crm_bedrijf c LEFT JOIN tbl_praktijk x ON x.crm_ref = c.crm_id
         WHERE x.praktijk_id IS NULL ORDER BY c.crm_id LIMIT 1`,
      );
      const id = `TRG-${randomBytes(6).toString("hex").toUpperCase()}`;
      if (source) {
        const [rows] = await connection.query<RowDataPacket[]>("SHOW COLUMNS FROM crm_bedrijf");
        const copied = rows
          .map((r) => String(r.Field))
          .filter((c) => !["crm_id", "alias", "gewijzigd_op"].includes(c));
        const list = copied.map((c) => connection.escapeId(c)).join(", ");
        await write(
          `INSERT INTO crm_bedrijf (crm_id, alias, gewijzigd_op, ${list})
           SELECT ?, ?, ?, ${list} FROM crm_bedrijf WHERE crm_id = ?`,
          [id, stamp, local, source.crm_id],
        );
      } else {
        await write(
          "INSERT INTO crm_bedrijf (crm_id, naam, alias, gewijzigd_op) VALUES (?, ?, ?, ?)",
          [id, `Trigger practice ${id}`, stamp, local],
        );
      }
      return { entityType: "practice", entityId: id, modifiedLocal: local };
    }
    case "practice.updated": {
      const row = await one(
        "SELECT c.crm_id FROM crm_bedrijf c JOIN tbl_praktijk p ON p.crm_ref = c.crm_id ORDER BY c.crm_id LIMIT 1",
      );
      if (!row) throw none("practice with a CRM record");
      // A new alias each time (the stamp), so the representation changes.
      await write("UPDATE crm_bedrijf SET alias = ?, gewijzigd_op = ? WHERE crm_id = ?", [
        `${stamp} ${randomBytes(2).toString("hex")}`,
        local,
        row.crm_id,
      ]);
      return { entityType: "practice", entityId: String(row.crm_id), modifiedLocal: local };
    }
  }
}
