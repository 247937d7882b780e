/**
 * The bare baseline for read-bench.ts: a plain node:http server that runs exactly the SQL the
 * service runs (the same statement builders, the same mysql2 pool settings) and answers with
 * JSON.stringify of the rows. No validation, no auth, no mapping, no envelope: what the database
 * and the serialisation cost on their own.
 */
import { createServer, type Server } from "node:http";
import type { LegacyDb } from "@svc/db";
import { dateIn } from "@svc/time";
import {
  countStatement,
  pageStatement,
  singleStatement,
} from "../src/source/mysql-vacancy-source.ts";
import type { VacancyFilter } from "../src/domain/ports.ts";

export function filterOf(params: URLSearchParams): VacancyFilter {
  const published = params.get("published");
  const since = params.get("updated_since");
  return {
    language: (params.get("language") ?? undefined) as VacancyFilter["language"],
    province: params.get("province") ?? undefined,
    position: params.get("position") ?? undefined,
    status: (params.get("status") ?? undefined) as VacancyFilter["status"],
    published: published === null ? undefined : published === "true",
    practice: params.get("practice") ?? undefined,
    // The bench only sends plain dates, which mean midnight in the zone.
    updatedSinceLocal: since === null ? undefined : `${since} 00:00:00`,
  };
}

export function baselineServer(db: LegacyDb, zone: string): Server {
  return createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://baseline");
    const asOf = { today: dateIn(zone, Date.now()) };
    const single = /^\/v1\/vacancies\/([^/]+)$/.exec(url.pathname);
    const send = (body: unknown) => {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify(body));
    };
    const fail = (err: unknown) => {
      res.writeHead(500);
      res.end(String(err));
    };
    if (single?.[1]) {
      const s = singleStatement(decodeURIComponent(single[1]), asOf);
      db.query(s.sql, s.params).then((rows) => send(rows[0] ?? null), fail);
      return;
    }
    const perPage = Number(url.searchParams.get("per_page") ?? 25);
    const page = Number(url.searchParams.get("page") ?? 1);
    const filter = filterOf(url.searchParams);
    const count = countStatement(filter, asOf);
    const rows = pageStatement(filter, asOf, { offset: (page - 1) * perPage, limit: perPage });
    Promise.all([db.query(count.sql, count.params), db.query(rows.sql, rows.params)]).then(
      ([n, items]) => send({ data: items, total: n[0] }),
      fail,
    );
  });
}
