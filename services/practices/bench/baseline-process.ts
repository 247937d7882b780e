/**
 * The bare baseline of read-bench.ts as its own process (so its memory is its own): a plain
 * node:http server running the very statements the service runs (same builders, legacy pool of
 * the default size) and answering JSON.stringify of the rows: no auth, no mapper, no envelope.
 * Prints {"port":N}.
 *
 *   node services/practices/bench/baseline-process.ts <legacy database url> <today YYYY-MM-DD>
 *
 *   GET /list?per_page=25&page=3[&count=false]   one page (+ the COUNT over the union unless
 *                                                count=false)
 *   GET /one/<practice_id>                       one practice
 */
import { createServer } from "node:http";
import { once } from "node:events";
import type { AddressInfo } from "node:net";
import { createLegacyDb } from "@svc/db";
import { countSql, pageSql } from "../src/source/mysql-practice-source.ts";

const [legacyUrl = "", today = ""] = process.argv.slice(2);
const db = createLegacyDb({ url: legacyUrl });

const server = createServer((req, res) => {
  const url = new URL(req.url ?? "/", "http://localhost");
  const work = async () => {
    if (url.pathname === "/list") {
      const page = Number(url.searchParams.get("page") ?? 1);
      const perPage = Number(url.searchParams.get("per_page") ?? 25);
      const q = pageSql({}, today, { limit: perPage, offset: (page - 1) * perPage });
      const rows = await db.query(q.text, q.params);
      let total: unknown = null;
      if (url.searchParams.get("count") !== "false") {
        const c = countSql({}, today);
        total = (await db.query<{ total: number }>(c.text, c.params))[0]?.total;
      }
      return { rows, total };
    }
    const q = pageSql(
      {},
      today,
      { limit: 2, offset: 0 },
      decodeURIComponent(url.pathname.slice("/one/".length)),
    );
    return { rows: await db.query(q.text, q.params) };
  };
  work().then(
    (body) => {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify(body));
    },
    () => {
      res.writeHead(500);
      res.end();
    },
  );
});
server.keepAliveTimeout = 65_000;
server.listen(0, "127.0.0.1");
await once(server, "listening");
process.stdout.write(`${JSON.stringify({ port: (server.address() as AddressInfo).port })}\n`);
process.once("SIGTERM", () => {
  server.closeAllConnections();
  server.close();
  void db.close();
});
