/**
 * The bare baseline of applications-bench.ts as its own process (so its memory is its own): a
 * plain node:http server that, for every POST, inserts the rows one new application writes
 * (candidate, two identifiers, recruitment case, application, three outbox events) in one
 * transaction straight through pg: the floor any implementation pays, plus the HTTP hop the
 * service pays too. No validation, no auth, no identity resolution. Prints {"port":N}.
 *
 *   node services/identity/bench/baseline-process.ts \
 *     <postgres url of the service's database> <pool size>
 */
import { randomBytes, randomUUID } from "node:crypto";
import { once } from "node:events";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import pg from "pg";
import { buildEvent } from "@svc/events";

const [databaseUrl = "", poolSize = "16"] = process.argv.slice(2);
const pool = new pg.Pool({ connectionString: databaseUrl, max: Number(poolSize) });

async function bareInsert(body: { vacancy_uuid: string }): Promise<void> {
  const client = await pool.connect();
  const now = new Date();
  const [candidate, recruitmentCase, application] = [randomUUID(), randomUUID(), randomUUID()];
  const events = [
    buildEvent({
      type: "candidate.created",
      entityId: candidate,
      publicBaseUrl: "https://bench.invalid",
    }),
    buildEvent({
      type: "recruitment_case.created",
      entityId: recruitmentCase,
      publicBaseUrl: "https://bench.invalid",
    }),
    buildEvent({
      type: "application.created",
      entityId: application,
      publicBaseUrl: "https://bench.invalid",
    }),
  ];
  try {
    await client.query("BEGIN");
    await client.query(
      "INSERT INTO identity.candidates (candidate_uuid, status, created_at) VALUES ($1, 'active', $2)",
      [candidate, now],
    );
    await client.query(
      "INSERT INTO identity.candidate_identifiers (lookup_hash, kind, candidate_uuid, created_at) VALUES ($1, 'email', $3, $4), ($2, 'phone', $3, $4)",
      [randomBytes(32), randomBytes(32), candidate, now],
    );
    await client.query(
      "INSERT INTO identity.recruitment_cases (recruitment_case_uuid, candidate_uuid, vacancy_uuid, practice_id, created_at) VALUES ($1, $2, $3, 'bench-practice', $4)",
      [recruitmentCase, candidate, body.vacancy_uuid, now],
    );
    await client.query(
      "INSERT INTO identity.applications (application_uuid, candidate_uuid, vacancy_uuid, practice_id, resolution, consent_flag, entrypoint_raw, entrypoint_code, recruitment_case_uuid, created_at) VALUES ($1, $2, $3, 'bench-practice', 'resolved', true, 'website', 'website', $4, $5)",
      [application, candidate, body.vacancy_uuid, recruitmentCase, now],
    );
    for (const e of events)
      await client.query(
        "INSERT INTO identity.outbox (event_uuid, event_type, payload) VALUES ($1, $2, $3)",
        [e.event_uuid, e.event_type, e],
      );
    await client.query("COMMIT");
  } catch (err) {
    await client.query("ROLLBACK").catch(() => undefined);
    throw err;
  } finally {
    client.release();
  }
}

const server = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on("data", (c: Buffer) => chunks.push(c));
  req.on("end", () => {
    bareInsert(JSON.parse(Buffer.concat(chunks).toString("utf8")) as { vacancy_uuid: string }).then(
      () => {
        res.writeHead(201, { "content-type": "application/json" });
        res.end("{}");
      },
      (err: unknown) => {
        res.writeHead(500);
        res.end(String(err));
      },
    );
  });
});
server.keepAliveTimeout = 65_000;
server.listen(0, "127.0.0.1");
await once(server, "listening");
process.stdout.write(`${JSON.stringify({ port: (server.address() as AddressInfo).port })}\n`);
process.once("SIGTERM", () => {
  server.closeAllConnections();
  server.close();
  void pool.end();
});
