import { once } from "node:events";
import { readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Writable } from "node:stream";
import pino from "pino";
import { describe, expect, it } from "vitest";
import {
  createLogger,
  isoTimestamp,
  logsWritten,
  REDACTED_PATHS,
  redactionPathShapes,
} from "../src/index.ts";

function capture() {
  const lines: Record<string, unknown>[] = [];
  const destination = new Writable({
    write(chunk, _enc, done) {
      lines.push(JSON.parse(String(chunk)) as Record<string, unknown>);
      done();
    },
  });
  return { lines, destination };
}

describe("createLogger", () => {
  it("writes JSON lines carrying the service name and a textual level", () => {
    const { lines, destination } = capture();
    createLogger({ service: "vacancies", level: "info", destination }).info(
      { request_id: "r1" },
      "hello",
    );
    expect(lines[0]).toMatchObject({
      service: "vacancies",
      level: "info",
      request_id: "r1",
      msg: "hello",
    });
  });

  it("redacts authorization headers, secrets, tokens and personal data", () => {
    const { lines, destination } = capture();
    const log = createLogger({ service: "auth", level: "info", destination });
    log.info({
      req: { headers: { authorization: "Bearer abc.def.ghi" } },
      client_secret: "s3cr3t",
      token: "tok",
      body: { candidate: { email: "a@b.be", phone: "+32470000000" } },
      subscription: { secret: "whsec" },
    });
    const text = JSON.stringify(lines[0]);
    for (const leaked of ["abc.def.ghi", "s3cr3t", 'tok"', "a@b.be", "+32470000000", "whsec"]) {
      expect(text).not.toContain(leaked);
    }
    expect(text).toContain("[redacted]");
  });

  it.each(REDACTED_PATHS)(
    "redacts %s wherever the path leads, nested or one level down",
    (path) => {
      const { lines, destination } = capture();
      // The path made real: `*` stands for any key.
      const secret = `leak-${path}`;
      const object: Record<string, unknown> = {};
      let at = object;
      const parts = path.split(".").map((part) => (part === "*" ? "anything" : part));
      parts.slice(0, -1).forEach((part) => (at = (at[part] = {}) as Record<string, unknown>));
      at[parts.at(-1)!] = secret;
      createLogger({ service: "x", level: "info", destination }).info(object, "line");
      expect(JSON.stringify(lines[0])).not.toContain(secret);
      expect(JSON.stringify(lines[0])).toContain("[redacted]");
    },
  );

  it("leaves lines without those paths as they are, and never changes the caller's object", () => {
    const { lines, destination } = capture();
    const log = createLogger({ service: "x", level: "info", destination });
    const request = {
      request_id: "r1",
      client_id: "c1",
      method: "GET",
      route: "/v1/vacancies",
      status: 200,
      duration_ms: 1.5,
    };
    log.info(request, "request");
    expect(lines[0]).toMatchObject(request);
    const withSecret = { client_secret: "s3cr3t", nested: { token: "t0k" }, keep: "me" };
    log.info(withSecret, "created");
    expect(lines[1]).toMatchObject({
      client_secret: "[redacted]",
      nested: { token: "[redacted]" },
      keep: "me",
    });
    expect(withSecret).toEqual({ client_secret: "s3cr3t", nested: { token: "t0k" }, keep: "me" });
  });

  it("keeps an error's message and stack when a redacted path sits on it", () => {
    const { lines, destination } = capture();
    const error = Object.assign(new Error("boom"), { token: "err-tok", code: "E1" });
    createLogger({ service: "x", level: "info", destination }).error({ err: error }, "failed");
    expect(lines[0]).toMatchObject({
      err: { type: "Error", message: "boom", token: "[redacted]", code: "E1" },
      msg: "failed",
    });
    expect(String((lines[0]!.err as { stack: string }).stack)).toContain("boom");
    expect(JSON.stringify(lines[0])).not.toContain("err-tok");
  });

  it("redacts child logger bindings too", () => {
    const { lines, destination } = capture();
    const child = createLogger({ service: "x", level: "info", destination }).child({
      token: "bound-tok",
    });
    child.info("line");
    child.child({ component: "c", nested: { secret: "deeper-secret" } }).info("line");
    expect(JSON.stringify(lines)).not.toMatch(/bound-tok|deeper-secret/);
    expect(lines[1]).toMatchObject({ component: "c" });
  });

  it.each(["a.*.b", "a.*", "*.*", "a[0]", "*.a.b"])(
    "refuses a redaction path it would not check for: %s",
    (path) => {
      expect(() => redactionPathShapes([path])).toThrow(/shape/);
    },
  );

  it("respects the level", () => {
    const { lines, destination } = capture();
    createLogger({ service: "x", level: "warn", destination }).info("dropped");
    expect(lines).toHaveLength(0);
  });
});

describe("isoTimestamp", () => {
  it("writes what pino's isoTime writes for the same instant, across milliseconds, seconds, days and years", () => {
    const instants = [
      Date.parse("2026-11-26T09:04:07.000Z"),
      Date.parse("2026-03-29T00:59:59.999Z"),
      Date.parse("1999-12-31T23:59:59.995Z"),
      0,
    ];
    for (const start of instants) {
      for (const step of [0, 1, 7, 10, 99, 100, 450, 999, 1000, 1001, 86_400_000]) {
        const at = start + step;
        // Called twice in a row: the second call reuses the second's cached text.
        let now = at - (step % 3);
        const stamp = isoTimestamp(() => now);
        stamp();
        now = at;
        expect(stamp(), String(at)).toBe(`,"time":"${new Date(at).toISOString()}"`);
      }
    }
  });

  it("stamps every line of a logger with the ISO time of the moment it is written", () => {
    const lines: string[] = [];
    const logger = createLogger({
      service: "t",
      level: "info",
      destination: new Writable({
        write: (chunk: Buffer, _e, done) => (lines.push(chunk.toString()), done()),
      }),
    });
    const before = Date.now();
    logger.info("one");
    const after = Date.now();
    const time = Date.parse((JSON.parse(lines[0] as string) as { time: string }).time);
    expect(time).toBeGreaterThanOrEqual(before);
    expect(time).toBeLessThanOrEqual(after);
  });
});

describe("logsWritten", () => {
  it("resolves once an asynchronous destination has written every line, in order", async () => {
    const dir = await mkdtemp(join(tmpdir(), "logs-written-"));
    try {
      const file = join(dir, "out.log");
      const destination = pino.destination({ dest: file, sync: false, minLength: 4096 });
      await once(destination, "ready");
      const log = createLogger({ service: "test", level: "info", destination });
      for (let n = 0; n < 2_000; n++) log.info({ n }, "line");
      await logsWritten(log);
      const written = readFileSync(file, "utf8").trim().split("\n");
      expect(written.map((l) => (JSON.parse(l) as { n: number }).n)).toEqual(
        Array.from({ length: 2_000 }, (_, n) => n),
      );
      destination.end();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("gives up after its bound when the destination never finishes", async () => {
    const stuck = { write: () => true, flush: () => undefined };
    const log = createLogger({ service: "test", level: "info", destination: stuck });
    const started = performance.now();
    await logsWritten(log, 200);
    expect(performance.now() - started).toBeGreaterThanOrEqual(195);
  });
});
