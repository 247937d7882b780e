import { describe, expect, it } from "vitest";
import { WorkQueue } from "../src/work-queue.ts";
import { sleep } from "@svc/testing/kube";

const queue = () => new WorkQueue({ retryMinMs: 20, retryMaxMs: 200 });

describe("WorkQueue", () => {
  it("holds a key once however often it is added", async () => {
    const q = queue();
    q.add("ns/a");
    q.add("ns/b");
    q.add("ns/a");
    expect(q.length).toBe(2);
    expect(await q.get()).toBe("ns/a");
    expect(await q.get()).toBe("ns/b");
  });

  it("never hands out a key in progress; one added meanwhile runs again after done", async () => {
    const q = queue();
    q.add("ns/a");
    const key = await q.get();
    q.add("ns/a");
    q.add("ns/a");
    expect(q.length).toBe(0);
    q.done(key as string);
    expect(q.length).toBe(1);
    expect(await q.get()).toBe("ns/a");
  });

  it("wakes a waiting worker when a key arrives", async () => {
    const q = queue();
    const next = q.get();
    q.add("ns/a");
    expect(await next).toBe("ns/a");
  });

  it("retries with growing backoff per key, and forget resets it", async () => {
    const q = queue();
    const delays = [q.retry("ns/a"), q.retry("ns/a"), q.retry("ns/a")];
    // Jittered to 50–100 % of 20, 40, 80 ms.
    expect(delays[0]).toBeLessThanOrEqual(20);
    expect(delays[2]).toBeGreaterThanOrEqual(40);
    expect(q.failures("ns/a")).toBe(3);
    q.forget("ns/a");
    expect(q.failures("ns/a")).toBe(0);
    await sleep(30);
    expect(await q.get()).toBe("ns/a"); // the earliest pending retry fired
  });

  it("releases waiting workers with undefined on close and drops pending retries", async () => {
    const q = queue();
    const waiting = q.get();
    q.retry("ns/a");
    q.close();
    expect(await waiting).toBeUndefined();
    await sleep(40);
    expect(q.length).toBe(0);
    expect(await q.get()).toBeUndefined();
  });
});
