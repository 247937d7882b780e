import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SourceUnavailableError } from "@svc/errors";
import { testEnv } from "@svc/testing";
import type { NatsConnection } from "@nats-io/transport-node";
import {
  drainNats,
  makeHeaders,
  getTraceContext,
  MessagingRemoteError,
  MessagingUnavailableError,
  names,
  request,
  serve,
  setTraceContext,
} from "../src/index.ts";
import type { RequestContext, Responder } from "../src/index.ts";
import { connectForTest, recordingLogger, sleep, testNamespace } from "./support.ts";

const n = names(testNamespace());
let nc: NatsConnection;
const responders: Responder[] = [];

beforeAll(async () => {
  ({ nc } = await connectForTest(testEnv.TEST_NATS_URL, "messaging-rpc-test"));
});
afterAll(async () => {
  await Promise.all(responders.map((r) => r.stop()));
  await drainNats(nc);
});

function serveOn<Req, Res>(
  subject: string,
  handler: (data: Req, context: RequestContext) => Promise<Res> | Res,
  logger = recordingLogger(),
) {
  const responder = serve<Req, Res>(nc, subject, handler, { queue: "vacancies", logger });
  responders.push(responder);
  return responder;
}

describe("request and serve", () => {
  it("returns the responder's JSON reply, spreading requests over the queue group", async () => {
    const servedBy: string[] = [];
    for (const replica of ["a", "b"]) {
      serveOn<{ id: number }, { exists: boolean }>(n.rpc.vacancyExists, ({ id }) => {
        servedBy.push(replica);
        return { exists: id === 42 };
      });
    }
    await nc.flush();
    expect(await request(nc, n.rpc.vacancyExists, { id: 42 }, { timeoutMs: 1_000 })).toEqual({
      exists: true,
    });
    const replies = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        request(nc, n.rpc.vacancyExists, { id: i }, { timeoutMs: 1_000 }),
      ),
    );
    expect(replies.filter((r) => (r as { exists: boolean }).exists)).toHaveLength(0);
    // Each request went to exactly one replica, and both took some.
    expect(servedBy).toHaveLength(21);
    expect(new Set(servedBy)).toEqual(new Set(["a", "b"]));
  });

  it("passes headers such as the trace context to the handler", async () => {
    const subject = `${n.namespace}.rpc.test.trace`;
    const traceparent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
    responders.push(
      serve(nc, subject, (_d, { headers }) => getTraceContext(headers) ?? null, {
        queue: "q",
        logger: recordingLogger(),
      }),
    );
    await nc.flush();
    const headers = setTraceContext(makeHeaders(), { traceparent });
    expect(await request(nc, subject, {}, { timeoutMs: 1_000, headers })).toEqual({ traceparent });
  });

  it("throws MessagingUnavailableError when the responder does not answer in time", async () => {
    const subject = `${n.namespace}.rpc.test.slow`;
    serveOn(subject, async () => {
      await sleep(500);
      return "late";
    });
    await nc.flush();
    const started = Date.now();
    const err = await request(nc, subject, {}, { timeoutMs: 150 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(MessagingUnavailableError);
    expect(err).toMatchObject({ reason: "timeout", subject, code: "MESSAGING_UNAVAILABLE" });
    expect(Date.now() - started).toBeLessThan(450);
  });

  it("throws MessagingUnavailableError at once when nobody serves the subject", async () => {
    const started = Date.now();
    const err = await request(nc, `${n.namespace}.rpc.test.nobody`, {}, { timeoutMs: 5_000 }).catch(
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(MessagingUnavailableError);
    expect(err).toMatchObject({ reason: "no_responders" });
    expect(Date.now() - started).toBeLessThan(1_000);
  });

  it("reports a failing handler as MessagingRemoteError without leaking its message", async () => {
    const subject = `${n.namespace}.rpc.test.fails`;
    const logger = recordingLogger();
    serveOn(
      subject,
      () => {
        throw new Error("secret detail");
      },
      logger,
    );
    await nc.flush();
    const err = await request(nc, subject, {}, { timeoutMs: 1_000 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(MessagingRemoteError);
    expect(err).toMatchObject({ remoteCode: 500 });
    expect((err as Error).message).not.toContain("secret");
    expect(logger.entries).toContainEqual(
      expect.objectContaining({ level: "error", msg: "request handler failed" }),
    );
  });

  it("carries a DomainError's status and contract code to the requester", async () => {
    const subject = `${n.namespace}.rpc.test.domain`;
    const logger = recordingLogger();
    serveOn(
      subject,
      () => {
        throw new SourceUnavailableError(new Error("connect ECONNREFUSED"));
      },
      logger,
    );
    await nc.flush();
    const err = await request(nc, subject, {}, { timeoutMs: 1_000 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(MessagingRemoteError);
    expect(err).toMatchObject({ remoteCode: 503, remoteErrorCode: "LEGACY_SOURCE_UNAVAILABLE" });
    expect((err as Error).message).not.toContain("ECONNREFUSED");
    expect(logger.entries).toContainEqual(
      expect.objectContaining({ level: "warn", msg: "request refused" }),
    );
  });

  it("tells the handler how long the requester waits", async () => {
    const subject = `${n.namespace}.rpc.test.wait`;
    serveOn(subject, (_d: unknown, { timeoutMs }) => ({ wait: timeoutMs ?? null }));
    await nc.flush();
    expect(await request(nc, subject, {}, { timeoutMs: 1_234 })).toEqual({ wait: 1_234 });
  });

  it("answers 400 to a request that fails validation", async () => {
    const subject = `${n.namespace}.rpc.test.validate`;
    const parse = (d: unknown) => {
      if (typeof d !== "number") throw new Error("not a number");
      return d;
    };
    responders.push(
      serve(nc, subject, (d: number) => d * 2, { queue: "q", logger: recordingLogger(), parse }),
    );
    await nc.flush();
    expect(await request(nc, subject, 21, { timeoutMs: 1_000 })).toBe(42);
    await expect(request(nc, subject, "x", { timeoutMs: 1_000 })).rejects.toMatchObject({
      remoteCode: 400,
    });
  });

  it("stop() answers requests already received, then stops serving", async () => {
    const subject = `${n.namespace}.rpc.test.stop`;
    const responder = serveOn(subject, async () => {
      await sleep(200);
      return "done";
    });
    await nc.flush();
    const inFlight = request(nc, subject, {}, { timeoutMs: 1_000 });
    await sleep(50);
    await responder.stop();
    expect(await inFlight).toBe("done");
    await expect(request(nc, subject, {}, { timeoutMs: 500 })).rejects.toMatchObject({
      reason: "no_responders",
    });
  });
});
