import { randomUUID } from "node:crypto";
import { startLegacyReadWorld, type DetectorSchedule, type LegacyReadWorld } from "@svc/testing";
import { VacancyChangeSource } from "../../src/workers/vacancy-change-source.ts";
import { loadConfig, type Config } from "../../src/config.ts";
import { MIGRATIONS_FOLDER } from "../../src/store/migrations.ts";
import { MysqlVacancyFeed } from "../../src/source/mysql-vacancy-feed.ts";
import {
  NOON_ON_TODAY,
  seededLegacyDatabase,
  startVacancies,
  type Envelope,
  type RunningVacancies,
} from "./harness.ts";

const DAY_MS = 86_400_000;
/** Legacy columns a test sets on a vacancy row (the test speaks the legacy schema to write it). */
export type VacancyColumns = Record<string, string | number | null>;
/** What an event's links.self answers. */
type Followed = Envelope<{ uuid: string; title: string | null; published: boolean }>;

/**
 * The vacancies service's event pipeline over a fixture legacy database (see LegacyReadWorld),
 * its clock at noon on the fixtures' "today", with writers of vacancy rows.
 */
export interface EventsWorld extends LegacyReadWorld<Config, RunningVacancies, Followed> {
  insert(columns?: VacancyColumns): Promise<string>;
  update(uuid: string, columns: VacancyColumns): Promise<void>;
}

/** A sweep every 7 days unless `sweepMs` says otherwise. */
export async function startEventsWorld(schedule: DetectorSchedule = {}): Promise<EventsWorld> {
  const world = await startLegacyReadWorld<Config, RunningVacancies, Followed>(
    {
      service: "vacancies",
      migrationsFolder: MIGRATIONS_FOLDER,
      legacyDatabase: () => seededLegacyDatabase(0),
      start: NOON_ON_TODAY,
      startApi: startVacancies,
      loadConfig,
      // A small page size, so the fixture set (about 45 vacancies) spans several pages of each read.
      changeSource: (legacy, config) =>
        new VacancyChangeSource(new MysqlVacancyFeed(legacy, config.TIME_ZONE), { pageSize: 7 }),
      readToken: (api) => api.token(),
    },
    schedule,
  );
  return {
    ...world,
    async insert(columns = {}) {
      const uuid = randomUUID();
      const row = {
        uuid,
        kop_publiek: `Vacature ${uuid.slice(0, 8)}`,
        taal: "nl",
        status: 2,
        zichtbaar: 1,
        aangemaakt_op: world.local(-DAY_MS),
        gewijzigd_op: world.local(),
        ...columns,
      };
      await world.write("INSERT INTO tbl_vacature SET ?", [row]);
      return uuid;
    },
    update: (uuid, columns) =>
      world.write("UPDATE tbl_vacature SET ? WHERE uuid = ?", [columns, uuid]),
  };
}
