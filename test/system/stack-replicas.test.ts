import { describe, expect, it } from "vitest";
import { loadConfig as loadGatewayConfig } from "../../services/gateway/src/config.ts";
import { localStackConfig } from "../../tools/config.ts";
import { parseReplicas, stackPorts, stackWithOffset, upstreamsOf } from "../../tools/stack.ts";

describe("STACK_REPLICAS (the launcher's replicas)", () => {
  it("runs one of each process by default", () => {
    const names = stackWithOffset(0).map((p) => p.name);
    expect(names).toEqual([...new Set(names)]);
    expect(names).not.toContain("vacancies#2");
  });

  it("names each further replica <process>#n and puts it 100 ports per replica above the first", () => {
    const stack = stackWithOffset(1_000, parseReplicas("vacancies=3, webhooks-dispatcher=2"));
    const byName = new Map(stack.map((p) => [p.name, p]));
    expect(byName.get("vacancies")).toMatchObject({ port: 9_083, internalPort: 10_483 });
    expect(byName.get("vacancies#2")).toMatchObject({ port: 9_183, internalPort: 10_583 });
    expect(byName.get("vacancies#3")).toMatchObject({ port: 9_283, internalPort: 10_683 });
    expect(byName.get("webhooks-dispatcher#2")).toMatchObject({ port: null, internalPort: 10_586 });
    const ports = stackPorts(1_000, parseReplicas("vacancies=3,webhooks-dispatcher=2"));
    expect(ports).toHaveLength(new Set(ports).size);
  });

  it("gives the gateway every replica of a service, which it parses as that service's list", () => {
    const upstreams = upstreamsOf(stackWithOffset(0, parseReplicas("practices=2")));
    expect(upstreams).toContain("practices=http://127.0.0.1:8082|http://127.0.0.1:8182");
    const config = loadGatewayConfig({ GATEWAY_UPSTREAMS: upstreams });
    expect(config.GATEWAY_UPSTREAMS.practices).toEqual([
      "http://127.0.0.1:8082",
      "http://127.0.0.1:8182",
    ]);
    expect(config.GATEWAY_UPSTREAMS.vacancies).toEqual(["http://127.0.0.1:8083"]);
  });

  it.each([
    ["gateway=2", "does not name a process of the stack other than the gateway"],
    ["nosuch=2", "does not name a process of the stack other than the gateway"],
    ["vacancies=0", "must give a whole number from 1 to 4"],
    ["vacancies=5", "must give a whole number from 1 to 4"],
    ["vacancies=two", "must give a whole number from 1 to 4"],
  ])("refuses STACK_REPLICAS=%s", (value, message) => {
    expect(() => localStackConfig({ STACK_REPLICAS: value })).toThrow(message);
  });
});
