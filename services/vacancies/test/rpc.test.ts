import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createLegacyDb, type LegacyDb } from "@svc/db";
import { fixtures } from "@svc/sandbox";
import {
  connectNats,
  drainNats,
  MessagingRemoteError,
  names,
  request,
  type NatsConnection,
  type Responder,
} from "@svc/messaging";
import { silentLogger, testEnv, unusedPort, type TempDatabase } from "@svc/testing";
import type { VacancyExistsReply } from "../src/domain/get-vacancy.ts";
import { serveVacancyExists } from "../src/messaging/vacancy-exists.ts";
import { MysqlVacancySource } from "../src/source/mysql-vacancy-source.ts";
import { config, seededLegacyDatabase } from "./support/harness.ts";

// The request/reply the identity service uses, over a real NATS server in a namespace of its own.
const namespace = `t${randomBytes(5).toString("hex")}`;
const subject = names(namespace).rpc.vacancyExists;
const V = fixtures.vacancies;

let database: TempDatabase;
let legacy: LegacyDb;
let nc: NatsConnection;
let responder: Responder;

beforeAll(async () => {
  database = await seededLegacyDatabase(0);
  legacy = createLegacyDb({ url: database.url });
  nc = await connectNats({
    servers: testEnv.TEST_NATS_URL,
    name: "vacancies-rpc-test",
    logger: silentLogger(),
  });
  responder = serveVacancyExists(
    nc,
    namespace,
    new MysqlVacancySource(legacy, config.TIME_ZONE),
    silentLogger(),
  );
  await nc.flush();
});
afterAll(async () => {
  await responder.stop();
  await drainNats(nc);
  await legacy.close();
  await database.drop();
});

const ask = (payload: unknown) =>
  request<VacancyExistsReply>(nc, subject, payload, { timeoutMs: 2_000 });

describe("vacancy exists (NATS request/reply)", () => {
  it("confirms a live vacancy and names its practice", async () => {
    expect(await ask({ uuid: V.ordinary })).toEqual({
      exists: true,
      practice_id: fixtures.practices.primaryComplete,
    });
    expect(await ask({ uuid: V.practiceLegacyId })).toEqual({
      exists: true,
      practice_id: fixtures.practices.legacyIdWithSlash,
    });
  });

  it("confirms a live vacancy without a practice with practice_id null", async () => {
    expect(await ask({ uuid: V.practiceNone })).toEqual({ exists: true, practice_id: null });
  });

  it("denies a soft-deleted vacancy", async () => {
    expect(await ask({ uuid: V.softDeleted })).toEqual({ exists: false, practice_id: null });
  });

  it("denies an unknown uuid", async () => {
    expect(await ask({ uuid: "00000000-0000-4000-8000-000000000000" })).toEqual({
      exists: false,
      practice_id: null,
    });
    expect(await ask({ uuid: "not even a uuid" })).toEqual({ exists: false, practice_id: null });
  });

  it("answers a malformed request with remote error 400", async () => {
    await expect(ask({ id: 42 })).rejects.toMatchObject({ remoteCode: 400 });
  });

  it("answers with a remote error at once, never 'does not exist', when the legacy database is unreachable", async () => {
    const url = new URL(database.url);
    url.port = String(await unusedPort());
    const downDb = createLegacyDb({ url: url.toString(), connectTimeoutMs: 500 });
    const downSubjectSpace = `t${randomBytes(5).toString("hex")}`;
    const down = serveVacancyExists(
      nc,
      downSubjectSpace,
      new MysqlVacancySource(downDb, config.TIME_ZONE),
      silentLogger(),
    );
    try {
      await nc.flush();
      const started = Date.now();
      const err = await request(
        nc,
        names(downSubjectSpace).rpc.vacancyExists,
        { uuid: V.ordinary },
        { timeoutMs: 5_000 },
      ).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(MessagingRemoteError);
      expect(Date.now() - started).toBeLessThan(2_000);
    } finally {
      await down.stop();
      await downDb.close().catch(() => undefined);
    }
  });
});
