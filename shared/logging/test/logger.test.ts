import { Writable } from "node:stream";
import { describe, expect, it } from "vitest";
import { createLogger } from "../src/index.ts";

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
    createLogger({ service: "vacancies", level: "info", destination }).info({ request_id: "r1" }, "hello");
    expect(lines[0]).toMatchObject({ service: "vacancies", level: "info", request_id: "r1", msg: "hello" });
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
    for (const leaked of ["abc.def.ghi", "s3cr3t", "tok\"", "a@b.be", "+32470000000", "whsec"]) {
      expect(text).not.toContain(leaked);
    }
    expect(text).toContain("[redacted]");
  });

  it("respects the level", () => {
    const { lines, destination } = capture();
    createLogger({ service: "x", level: "warn", destination }).info("dropped");
    expect(lines).toHaveLength(0);
  });
});
