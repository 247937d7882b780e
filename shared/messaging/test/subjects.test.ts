import { describe, expect, it } from "vitest";
import { names } from "../src/index.ts";

describe("names", () => {
  it("derives every stream, subject and bucket name from the namespace", () => {
    const n = names("acme");
    expect(n.eventsStream).toBe("ACME_EVENTS");
    expect(n.eventsWildcard).toBe("acme.events.>");
    expect(n.eventSubject("vacancy.updated")).toBe("acme.events.vacancy.updated");
    expect(n.deliveriesStream).toBe("ACME_WEBHOOK_DELIVERIES");
    expect(n.deliveriesWildcard).toBe("acme.webhook.delivery.>");
    expect(n.deliverySubject("0b7c-41")).toBe("acme.webhook.delivery.0b7c-41");
    expect(n.revocationsBucket).toBe("acme_revocations");
    expect(n.rpc.vacancyExists).toBe("acme.rpc.vacancies.exists");
  });

  it("keeps two namespaces apart", () => {
    const a = names("one");
    const b = names("two");
    expect(a.eventSubject("x")).not.toBe(b.eventSubject("x"));
    expect(a.eventsStream).not.toBe(b.eventsStream);
  });

  it.each(["", "Acme", "1abc", "a.b", "a b", "a>", "a*", "x".repeat(33)])(
    "rejects the namespace %j",
    (ns) => {
      expect(() => names(ns)).toThrow(RangeError);
    },
  );

  it.each(["", "a..b", "a.*", "a.>", "a b", ".a", "a."])("rejects the event type %j", (type) => {
    expect(() => names("acme").eventSubject(type)).toThrow(RangeError);
  });

  it.each(["", "a.b", "*", ">", "a b"])("rejects the subscription id %j", (id) => {
    expect(() => names("acme").deliverySubject(id)).toThrow(RangeError);
  });

  it("returns a frozen object", () => {
    expect(Object.isFrozen(names("acme"))).toBe(true);
  });
});
