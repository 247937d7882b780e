// The parts of the fake API server kubectl relies on, against the real server's rules: patches,
// the printer columns' JSONPath and ages, a CRD's admission (pruning, defaults, the schema,
// fieldValidation=Strict), and garbage collection by owner references. The whole of it meets the
// real kubectl in test/e2e/kubectl-operator.test.ts.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { FakeKubeApi } from "../src/fake-kube-api.ts";
import { CRD_RESOURCE } from "../src/fake-kube-crds.ts";
import { applyPatch } from "../src/fake-kube-patch.ts";
import type { Obj } from "../src/fake-kube-store.ts";
import { humanDuration, jsonPath } from "../src/fake-kube-table.ts";

const obj = (spec: Record<string, unknown>): Obj => ({ metadata: { name: "x" }, spec });

describe("patches", () => {
  it("merge patch: null deletes, objects merge, lists are replaced", () => {
    const next = applyPatch(
      "application/merge-patch+json",
      obj({ a: 1, b: { c: 2, d: 3 }, l: [1, 2] }),
      { spec: { a: null, b: { d: 4 }, l: [3] } },
    );
    expect(next.spec).toEqual({ b: { c: 2, d: 4 }, l: [3] });
  });

  it("JSON patch: add, replace, remove, test; a failed test refuses the whole patch", () => {
    const next = applyPatch("application/json-patch+json", obj({ l: ["a"], n: 1 }), [
      { op: "add", path: "/spec/l/-", value: "b" },
      { op: "replace", path: "/spec/n", value: 2 },
      { op: "remove", path: "/spec/l/0" },
    ]);
    expect(next.spec).toEqual({ l: ["b"], n: 2 });
    expect(() =>
      applyPatch("application/json-patch+json", obj({ n: 1 }), [
        { op: "test", path: "/spec/n", value: 2 },
      ]),
    ).toThrow(/test operation failed/);
  });

  it("refuses server-side apply with 415", () => {
    expect(() => applyPatch("application/apply-patch+yaml", obj({}), {})).toThrow(
      expect.objectContaining({ code: 415 }),
    );
  });
});

describe("printer columns", () => {
  const cr = {
    status: {
      conditions: [
        { type: "Other", status: "False" },
        { type: "Ready", status: "True" },
      ],
    },
    spec: { list: [{ n: 1 }, { n: 2 }] },
  };

  it("evaluates paths, filters and wildcards", () => {
    expect(jsonPath(cr, '.status.conditions[?(@.type=="Ready")].status')).toEqual(["True"]);
    expect(jsonPath(cr, ".spec.list[*].n")).toEqual([1, 2]);
    expect(jsonPath(cr, ".spec.list[1].n")).toEqual([2]);
    expect(jsonPath(cr, ".spec.missing.deeper")).toEqual([]);
  });

  it("shows ages as kubectl does", () => {
    expect(
      [5_000, 150_000, 3_600_000, 5 * 3_600_000 + 60_000, 3 * 86_400_000].map(humanDuration),
    ).toEqual(["5s", "2m30s", "60m", "5h1m", "3d"]);
  });
});

describe("CRDs and garbage collection", () => {
  let api: FakeKubeApi;
  const WIDGETS = "example.com/v1/widgets";
  const crd = {
    apiVersion: "apiextensions.k8s.io/v1",
    kind: "CustomResourceDefinition",
    metadata: { name: "widgets.example.com" },
    spec: {
      group: "example.com",
      scope: "Namespaced",
      names: { kind: "Widget", plural: "widgets" },
      versions: [
        {
          name: "v1",
          served: true,
          storage: true,
          schema: {
            openAPIV3Schema: {
              type: "object",
              properties: {
                spec: {
                  type: "object",
                  required: ["size"],
                  properties: {
                    size: { type: "integer", minimum: 1 },
                    colour: { type: "string", default: "blue" },
                  },
                },
              },
            },
          },
        },
      ],
    },
  };
  const post = (path: string, body: unknown, query = "") =>
    fetch(`${api.url}${path}${query}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
    });
  const widget = (spec: Record<string, unknown>) => ({
    apiVersion: "example.com/v1",
    kind: "Widget",
    metadata: { name: "w" },
    spec,
  });
  const path = "/apis/example.com/v1/namespaces/ns/widgets";

  beforeEach(async () => {
    api = await FakeKubeApi.start();
    expect(
      (await post("/apis/apiextensions.k8s.io/v1/customresourcedefinitions", crd)).status,
    ).toBe(201);
  });
  afterEach(async () => {
    await api.close();
  });

  it("establishes the CRD and admits its resources: defaults, pruning, the schema", async () => {
    const established = api.store.find(CRD_RESOURCE, "", "widgets.example.com");
    expect(established?.status?.conditions).toContainEqual(
      expect.objectContaining({ type: "Established", status: "True" }),
    );
    expect((await post(path, widget({ size: 0 }))).status).toBe(422);
    expect(
      (await post(path, widget({ size: 2, extra: 1 }), "?fieldValidation=Strict")).status,
    ).toBe(400);
    expect((await post(path, widget({ size: 2, extra: 1 }))).status).toBe(201);
    expect(api.store.find(WIDGETS, "ns", "w")?.spec).toEqual({ size: 2, colour: "blue" });
  });

  it("deletes dependents once their owner is gone", async () => {
    const owner = api.store.create(WIDGETS, "ns", widget({ size: 1 }) as Obj);
    const ref = {
      apiVersion: "example.com/v1",
      kind: "Widget",
      name: "w",
      uid: owner.metadata.uid!,
    };
    api.store.create("v1/secrets", "ns", { metadata: { name: "owned", ownerReferences: [ref] } });
    api.store.create("v1/secrets", "ns", { metadata: { name: "free" } });
    api.store.delete(WIDGETS, "ns", "w");
    expect(api.store.find("v1/secrets", "ns", "owned")).toBeUndefined();
    expect(api.store.find("v1/secrets", "ns", "free")).toBeDefined();
  });
});
