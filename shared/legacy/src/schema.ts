import type { Connection } from "mysql2/promise";

/**
 * The legacy primary database as the primary system would have built it: Dutch-flavoured table and
 * column names, local Europe/Brussels DATETIMEs, soft deletes, free-text codes. Only erasable,
 * portable DDL: it must run unchanged on MySQL 8 and MariaDB 10.11 (so no `utf8mb4_0900_*`
 * collations, no literal defaults on TEXT columns, no `CREATE OR REPLACE`).
 *
 * Identifier and code columns are `utf8mb4_bin`: ids compare exactly (an id is opaque, "abc" and
 * "ABC" are two practices), they sort the same on every server (stable pagination key), and both
 * sides of every join share the collation so the join can use the index.
 */

/** Bumped whenever a table or column changes; stored in the sandbox marker. */
export const LEGACY_SCHEMA_VERSION = 1;

export const TABLES = {
  province: "tbl_provincie",
  position: "tbl_functie",
  postalArea: "tbl_postcode",
  crmCompany: "crm_bedrijf",
  practice: "tbl_praktijk",
  practiceTdm: "tbl_praktijk_tdm",
  vacancy: "tbl_vacature",
} as const;

export type LegacyTable = (typeof TABLES)[keyof typeof TABLES];

/** Data tables in load order (reference lists first); the marker table is not one of them. */
export const DATA_TABLES: readonly LegacyTable[] = Object.values(TABLES);

const TABLE_OPTIONS = "ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci";
const ID = "CHARACTER SET utf8mb4 COLLATE utf8mb4_bin";

const DDL: Record<LegacyTable, string> = {
  tbl_provincie: `CREATE TABLE tbl_provincie (
  provincie_code VARCHAR(10) ${ID} NOT NULL,
  omschrijving VARCHAR(100) NOT NULL,
  actief TINYINT(1) NOT NULL DEFAULT 1,
  volgorde SMALLINT NOT NULL DEFAULT 0,
  PRIMARY KEY (provincie_code)
) ${TABLE_OPTIONS}`,

  tbl_functie: `CREATE TABLE tbl_functie (
  functie_code VARCHAR(20) ${ID} NOT NULL,
  omschrijving VARCHAR(100) NOT NULL,
  actief TINYINT(1) NOT NULL DEFAULT 1,
  volgorde SMALLINT NOT NULL DEFAULT 0,
  PRIMARY KEY (functie_code)
) ${TABLE_OPTIONS}`,

  tbl_postcode: `CREATE TABLE tbl_postcode (
  postcode VARCHAR(12) NOT NULL,
  gemeente VARCHAR(100) NOT NULL,
  provincie_code VARCHAR(10) ${ID} NULL,
  breedtegraad DECIMAL(9,6) NOT NULL,
  lengtegraad DECIMAL(9,6) NOT NULL,
  PRIMARY KEY (postcode)
) ${TABLE_OPTIONS}`,

  crm_bedrijf: `CREATE TABLE crm_bedrijf (
  crm_id VARCHAR(64) ${ID} NOT NULL,
  naam VARCHAR(255) NULL,
  alias VARCHAR(255) NULL,
  organisatie_type VARCHAR(100) NULL,
  btw_nummer VARCHAR(30) NULL,
  straat VARCHAR(255) NULL,
  postcode VARCHAR(12) NULL,
  gemeente VARCHAR(100) NULL,
  provincie VARCHAR(100) NULL,
  land VARCHAR(60) NULL,
  email VARCHAR(255) NULL,
  telefoon VARCHAR(40) NULL,
  taal VARCHAR(10) NULL,
  periode_start DATE NULL,
  periode_stop DATE NULL,
  gewijzigd_op DATETIME NOT NULL,
  PRIMARY KEY (crm_id),
  KEY idx_crm_naam (naam),
  KEY idx_crm_provincie (provincie),
  KEY idx_crm_taal (taal),
  KEY idx_crm_periode (periode_start, periode_stop),
  KEY idx_crm_postcode (postcode),
  KEY idx_crm_gewijzigd (gewijzigd_op)
) ${TABLE_OPTIONS}`,

  tbl_praktijk: `CREATE TABLE tbl_praktijk (
  praktijk_id INT UNSIGNED NOT NULL AUTO_INCREMENT,
  crm_ref VARCHAR(64) ${ID} NOT NULL,
  naam VARCHAR(255) NULL,
  actief TINYINT(1) NOT NULL DEFAULT 0,
  zichtbaar TINYINT(1) NOT NULL DEFAULT 0,
  taal VARCHAR(10) NULL,
  logo VARCHAR(255) NULL,
  regio_tekst TEXT NULL,
  contact_tekst TEXT NULL,
  coach_mdw_ref VARCHAR(20) NULL,
  aangemaakt_op DATETIME NULL,
  gewijzigd_op DATETIME NOT NULL,
  PRIMARY KEY (praktijk_id),
  KEY idx_praktijk_crm_ref (crm_ref),
  KEY idx_praktijk_actief (actief, zichtbaar),
  KEY idx_praktijk_zichtbaar (zichtbaar),
  KEY idx_praktijk_taal (taal),
  KEY idx_praktijk_naam (naam),
  KEY idx_praktijk_gewijzigd (gewijzigd_op)
) ${TABLE_OPTIONS}`,

  tbl_praktijk_tdm: `CREATE TABLE tbl_praktijk_tdm (
  tdm_koppeling_id INT UNSIGNED NOT NULL AUTO_INCREMENT,
  praktijk_id INT UNSIGNED NOT NULL,
  tdm_ref VARCHAR(40) ${ID} NOT NULL,
  aangemaakt_op DATETIME NULL,
  PRIMARY KEY (tdm_koppeling_id),
  KEY idx_tdm_praktijk (praktijk_id)
) ${TABLE_OPTIONS}`,

  // Every filter index leads with `verwijderd`: the API never returns soft-deleted rows, so the
  // common predicate is `verwijderd = 0 AND <filter>`, and InnoDB appends the primary key to each
  // secondary index, which makes `ORDER BY vacature_id` free within each filter.
  tbl_vacature: `CREATE TABLE tbl_vacature (
  vacature_id INT UNSIGNED NOT NULL AUTO_INCREMENT,
  uuid CHAR(36) ${ID} NOT NULL,
  kop_publiek VARCHAR(255) NULL,
  naam_frontend VARCHAR(255) NULL,
  naam_intern VARCHAR(255) NULL,
  slug VARCHAR(255) NULL,
  teaser TEXT NULL,
  taal VARCHAR(10) NULL,
  praktijk_ref VARCHAR(64) ${ID} NULL,
  praktijk_naam VARCHAR(255) NULL,
  praktijk_keuzelijst VARCHAR(20) NULL,
  provincie_code VARCHAR(10) ${ID} NULL,
  regio TEXT NULL,
  functie_code VARCHAR(20) ${ID} NULL,
  werktijd VARCHAR(40) NULL,
  contract_type VARCHAR(40) NULL,
  inhoud_intro MEDIUMTEXT NULL,
  inhoud_profiel MEDIUMTEXT NULL,
  inhoud_taken MEDIUMTEXT NULL,
  inhoud_aanbod MEDIUMTEXT NULL,
  inhoud_contact MEDIUMTEXT NULL,
  afbeelding VARCHAR(255) NULL,
  status TINYINT UNSIGNED NULL DEFAULT 1,
  zichtbaar TINYINT(1) NOT NULL DEFAULT 0,
  publicatiedatum DATE NULL,
  aangemaakt_op DATETIME NULL,
  gewijzigd_op DATETIME NULL,
  zoekt_verpleegkundige VARCHAR(10) NULL,
  verwijderd TINYINT(1) NOT NULL DEFAULT 0,
  PRIMARY KEY (vacature_id),
  UNIQUE KEY uq_vacature_uuid (uuid),
  KEY idx_vac_taal (verwijderd, taal),
  KEY idx_vac_provincie (verwijderd, provincie_code),
  KEY idx_vac_functie (verwijderd, functie_code),
  KEY idx_vac_status (verwijderd, status),
  KEY idx_vac_gepubliceerd (verwijderd, zichtbaar, publicatiedatum),
  KEY idx_vac_praktijk (verwijderd, praktijk_ref),
  KEY idx_vac_gewijzigd (gewijzigd_op)
) ${TABLE_OPTIONS}`,
};

/** The legacy schema as one `CREATE TABLE` statement per data table, in load order. */
export function legacySchemaStatements(): string[] {
  return DATA_TABLES.map((table) => DDL[table]);
}

/** The legacy schema as one SQL script (statements separated by `;` and a blank line). */
export const legacySchemaSql: string = `${legacySchemaStatements().join(";\n\n")};\n`;

/** Creates every data table in the connection's current database. */
export async function applyLegacySchema(connection: Connection): Promise<void> {
  for (const statement of legacySchemaStatements()) await connection.query(statement);
}
