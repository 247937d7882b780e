import { fileURLToPath } from "node:url";
import { openServerConnection } from "@svc/sandbox";
import { describeChangeDetectingProcess, testEnv } from "@svc/testing";
import { localOfInstant } from "@svc/time";
import { seedLegacy } from "./support/harness.ts";

describeChangeDetectingProcess({
  service: "practices",
  entry: fileURLToPath(new URL("../src/main.ts", import.meta.url)),
  legacyDatabase: () => seedLegacy(0),
  async insert(database, id) {
    const writer = await openServerConnection(testEnv.TEST_MYSQL_URL);
    try {
      const now = localOfInstant(Date.now(), "Europe/Brussels");
      await writer.query(`INSERT INTO \`${database}\`.crm_bedrijf SET ?`, [
        { crm_id: id, naam: "Tandartspraktijk", gewijzigd_op: now },
      ]);
    } finally {
      await writer.end();
    }
  },
  created: { eventType: "practice.created", path: "/v1/practices" },
});
