import { startLegacyReadWorld, type DetectorSchedule, type LegacyReadWorld } from "@svc/testing";
import { PracticeChangeSource } from "../../src/workers/practice-change-source.ts";
import { loadConfig, type Config } from "../../src/config.ts";
import { MIGRATIONS_FOLDER } from "../../src/store/migrations.ts";
import type { Practice } from "../../src/domain/practice.ts";
import { MysqlPracticeFeed } from "../../src/source/mysql-practice-feed.ts";
import { NOW, seedLegacy, startPractices, type Envelope, type PracticesApp } from "./harness.ts";

/** The practices service's event pipeline over a fixture legacy database (see LegacyReadWorld). */
export type EventsWorld = LegacyReadWorld<Config, PracticesApp, Envelope<Practice>>;

export const startEventsWorld = (schedule: DetectorSchedule): Promise<EventsWorld> =>
  startLegacyReadWorld<Config, PracticesApp, Envelope<Practice>>(
    {
      service: "practices",
      migrationsFolder: MIGRATIONS_FOLDER,
      legacyDatabase: () => seedLegacy(0),
      start: NOW,
      startApi: startPractices,
      loadConfig,
      // A small page size, so the fixture set (about 60 practices) spans several pages of each read.
      changeSource: (legacy) =>
        new PracticeChangeSource(new MysqlPracticeFeed(legacy), { pageSize: 7 }),
      readToken: (api) => api.issuer.mint({ scope: "practices:read" }),
    },
    schedule,
  );
