// The fake API server's selectors, through the real client library (so the query strings are the
// ones @kubernetes/client-node sends): list and watch filtered by labelSelector and fieldSelector,
// and the real server's 400 for a selector it cannot parse.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { CoreV1Api, Watch } from "@kubernetes/client-node";
import { FakeKubeApi } from "../src/fake-kube-api.ts";
import { waitFor } from "../src/wait.ts";

const NS = "integration";
const SECRETS = "v1/secrets";
let api: FakeKubeApi;

beforeEach(async () => {
  api = await FakeKubeApi.start();
  for (const [name, team] of [
    ["a", "blue"],
    ["b", "green"],
    ["c", undefined],
  ] as const)
    api.store.create(SECRETS, NS, {
      metadata: { name, ...(team && { labels: { team } }) },
      data: { k: "dg==" },
    });
});

afterEach(async () => {
  await api.close();
});

const names = (list: { items: Array<{ metadata?: { name?: string } }> }) =>
  list.items.map((i) => i.metadata?.name);

describe("fake API server selectors", () => {
  it("filters lists by labels and by metadata.name", async () => {
    const core = api.kubeConfig().makeApiClient(CoreV1Api);
    const list = (q: { labelSelector?: string; fieldSelector?: string }) =>
      core.listNamespacedSecret({ namespace: NS, ...q }).then(names);
    expect(await list({})).toEqual(["a", "b", "c"]);
    expect(await list({ labelSelector: "team=blue" })).toEqual(["a"]);
    expect(await list({ labelSelector: "team!=blue" })).toEqual(["b", "c"]);
    expect(await list({ labelSelector: "team" })).toEqual(["a", "b"]);
    expect(await list({ labelSelector: "!team" })).toEqual(["c"]);
    expect(await list({ fieldSelector: "metadata.name=b" })).toEqual(["b"]);
    expect(await list({ labelSelector: "team", fieldSelector: "metadata.name!=a" })).toEqual(["b"]);
  });

  it("answers 400 to a selector it cannot parse, as the real server does", async () => {
    const core = api.kubeConfig().makeApiClient(CoreV1Api);
    await expect(
      core.listNamespacedSecret({ namespace: NS, fieldSelector: "data.k=x" }),
    ).rejects.toMatchObject({ code: 400 });
    await expect(
      core.listNamespacedSecret({ namespace: NS, labelSelector: "team in (blue" }),
    ).rejects.toMatchObject({ code: 400 });
  });

  it("sends a watch only the events of matching objects, replayed and live", async () => {
    const seen: string[] = [];
    const controller = await new Watch(api.kubeConfig()).watch(
      `/api/v1/namespaces/${NS}/secrets`,
      { resourceVersion: "100", labelSelector: "team=blue" },
      (type, obj: { metadata: { name: string } }) => void seen.push(`${type} ${obj.metadata.name}`),
      () => {},
    );
    api.store.create(SECRETS, NS, { metadata: { name: "d", labels: { team: "blue" } } });
    api.store.create(SECRETS, NS, { metadata: { name: "e", labels: { team: "green" } } });
    api.store.delete(SECRETS, NS, "a");
    await waitFor("events", () => seen.length >= 3);
    controller.abort();
    expect(seen).toEqual(["ADDED a", "ADDED d", "DELETED a"]);
  });
});
