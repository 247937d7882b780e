import { fileURLToPath } from "node:url";
import { openServerConnection } from "@svc/sandbox";
import { describeChangeDetectingProcess, testEnv } from "@svc/testing";
import { localOfInstant } from "@svc/time";
import { seededLegacyDatabase } from "./support/harness.ts";

describeChangeDetectingProcess({
  service: "vacancies",
  entry: fileURLToPath(new URL("../src/main.ts", import.meta.url)),
  legacyDatabase: () => seededLegacyDatabase(0),
  async insert(database, uuid) {
    const writer = await openServerConnection(testEnv.TEST_MYSQL_URL);
    try {
      const now = localOfInstant(Date.now(), "Europe/Brussels");
      await writer.query(`INSERT INTO \`${database}\`.tbl_vacature SET ?`, [
        { uuid, kop_publiek: "Tandarts", zichtbaar: 1, aangemaakt_op: now, gewijzigd_op: now },
      ]);
    } finally {
      await writer.end();
    }
  },
  created: { eventType: "vacancy.created", path: "/v1/vacancies" },
});
