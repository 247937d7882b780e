// The files that cannot read @svc/manifest (shared/manifest/src/manifest.ts) agree with it: the
// chart's values.yaml, values.schema.json, component table (templates/_helpers.tpl), Jobs and
// route table, the Dockerfile, the Tiltfile, and the default ports of each process's config.ts.
// Each failure names the file and the manifest entry it lacks (or the entry the manifest lacks).
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import {
  DEPLOYED_PROCESSES,
  HELM_TESTS,
  JOBS,
  PROCESSES,
  processNamed,
  SERVICES,
  serviceOf,
  type ProcessManifest,
} from "@svc/manifest";
import { loadConfig as loadGatewayConfig } from "../../services/gateway/src/config.ts";
import { STACK, upstreamsOf } from "../../tools/stack.ts";
import { chartDir, repoRoot } from "./support/helm.ts";
import { starlarkLiterals } from "./support/starlark-literals.ts";

const MANIFEST = "shared/manifest/src/manifest.ts";
const read = (path: string) => readFileSync(join(repoRoot, path), "utf8");
const readChart = (path: string) => readFileSync(join(chartDir, path), "utf8");

/** How a failure names a deployed process: by its component, its process and its service. */
const named = (p: ProcessManifest) =>
  p.name === serviceOf(p).name
    ? `manifest service ${p.name}`
    : `manifest process ${p.name} of service ${serviceOf(p).name}`;

/** Keys a file has that the manifest lacks. */
const unknown = (file: string, what: string, keys: Iterable<string>, known: Iterable<string>) => {
  const knownSet = new Set(known);
  return [...keys]
    .filter((k) => !knownSet.has(k))
    .map((k) => `${file}: ${what} '${k}' is not in the manifest (${MANIFEST})`);
};

describe("the chart agrees with the manifest", () => {
  it("values.yaml has a component for every deployed process, and no other", () => {
    const values = parse(readChart("values.yaml")) as { components: Record<string, unknown> };
    const problems = [
      ...DEPLOYED_PROCESSES.filter((p) => !(p.component in values.components)).map(
        (p) => `values.yaml: no component '${p.component}' (${named(p)})`,
      ),
      ...unknown(
        "values.yaml",
        "component",
        Object.keys(values.components),
        DEPLOYED_PROCESSES.map((p) => p.component),
      ),
    ];
    expect(problems).toEqual([]);
  });

  it("values.schema.json allows and requires exactly those components", () => {
    const schema = JSON.parse(readChart("values.schema.json")) as {
      properties: { components: { required: string[]; properties: Record<string, unknown> } };
    };
    const { required, properties } = schema.properties.components;
    const problems = [
      ...DEPLOYED_PROCESSES.filter((p) => !(p.component in properties)).map(
        (p) => `values.schema.json: no component '${p.component}' (${named(p)})`,
      ),
      ...DEPLOYED_PROCESSES.filter((p) => !required.includes(p.component)).map(
        (p) => `values.schema.json: component '${p.component}' not required (${named(p)})`,
      ),
      ...unknown(
        "values.schema.json",
        "component",
        Object.keys(properties),
        DEPLOYED_PROCESSES.map((p) => p.component),
      ),
    ];
    expect(problems).toEqual([]);
  });

  it("templates/_helpers.tpl runs each component's entry point, public exactly when it serves an API port", () => {
    const helpers = readChart("templates/_helpers.tpl");
    const table =
      /\{\{- define "integration-service\.components" -\}\}\n([\s\S]*?)\{\{- end -\}\}/.exec(
        helpers,
      )?.[1];
    const components = parse(table ?? "") as Record<
      string,
      { entrypoint: string; public: boolean }
    > | null;
    const file = "templates/_helpers.tpl (integration-service.components)";
    const problems: string[] = [];
    for (const p of DEPLOYED_PROCESSES) {
      const c = components?.[p.component];
      const entry = `${p.workspace}/${p.entry}`;
      if (!c) problems.push(`${file}: no component '${p.component}' (${named(p)})`);
      else {
        if (c.entrypoint !== entry)
          problems.push(`${file}: '${p.component}' runs ${c.entrypoint}, the manifest ${entry}`);
        if (c.public !== (p.port !== null))
          problems.push(
            `${file}: '${p.component}' public: ${c.public}, the manifest gives it ${p.port === null ? "no" : "an"} API port`,
          );
      }
    }
    problems.push(
      ...unknown(
        file,
        "component",
        Object.keys(components ?? {}),
        DEPLOYED_PROCESSES.map((p) => p.component),
      ),
    );
    expect(problems).toEqual([]);
  });

  it("each Job template runs its manifest entry point", () => {
    const problems = JOBS.filter(
      (job) => !readChart(`templates/job-${job.name}.yaml`).includes(`"file" "${job.entry}"`),
    ).map(
      (job) =>
        `templates/job-${job.name}.yaml: does not run ${job.entry} (manifest job ${job.name})`,
    );
    expect(problems).toEqual([]);
  });

  it("each helm test template that runs code of the image runs its manifest entry point", () => {
    const problems = HELM_TESTS.filter(
      (test) => !readChart(`templates/tests/${test.name}.yaml`).includes(`"file" "${test.entry}"`),
    ).map(
      (test) =>
        `templates/tests/${test.name}.yaml: does not run ${test.entry} (manifest helm test ${test.name})`,
    );
    expect(problems).toEqual([]);
  });

  it("routes.json routes every prefix of each service to it, and names no other service", () => {
    const { routes } = JSON.parse(readChart("routes.json")) as {
      routes: Array<{ prefix: string; service: string }>;
    };
    const problems: string[] = [];
    for (const service of SERVICES)
      for (const prefix of service.routes) {
        const route = routes.find((r) => r.prefix === prefix);
        if (!route)
          problems.push(`routes.json: no route '${prefix}' (manifest service ${service.name})`);
        else if (route.service !== service.name)
          problems.push(
            `routes.json: '${prefix}' goes to '${route.service}', the manifest's service ${service.name} serves it`,
          );
      }
    const prefixes = new Set(SERVICES.flatMap((s) => s.routes));
    for (const route of routes)
      if (!prefixes.has(route.prefix))
        problems.push(
          `routes.json: route '${route.prefix}' (service '${route.service}') is not in the manifest (${MANIFEST})`,
        );
    expect(problems).toEqual([]);
  });
});

describe("the image agrees with the manifest", () => {
  it("the Dockerfile's runtime stage copies every service's migrations", () => {
    const dockerfile = read("Dockerfile");
    const problems = SERVICES.filter((s) => s.migrations !== null)
      .map((s) => ({ service: s, folder: `${s.workspace}/${s.migrations}/` }))
      .filter(({ folder }) => !dockerfile.includes(`\nCOPY ${folder} ./${folder}\n`))
      .map(
        ({ service, folder }) =>
          `Dockerfile: no 'COPY ${folder} ./${folder}' (manifest service ${service.name})`,
      );
    expect(problems).toEqual([]);
    // test/chart/image.test.ts compares the whole runtime stage with RUNTIME_FILES.
  });
});

describe("the Tiltfile agrees with the manifest", () => {
  const data = starlarkLiterals(read("Tiltfile")) as {
    COMPONENTS: Record<string, { port: number; local_port: number; labels: string[] }>;
    GATEWAY: { port: number; entrypoint: string };
  };

  it("forwards every deployed process, API processes from their npm start ports", () => {
    const problems: string[] = [];
    for (const p of DEPLOYED_PROCESSES) {
      const c = data.COMPONENTS[p.component];
      if (!c) {
        problems.push(`Tiltfile: process ${p.name} missing (no COMPONENTS entry '${p.component}')`);
        continue;
      }
      if (p.port !== null && c.local_port !== p.port)
        problems.push(
          `Tiltfile: COMPONENTS '${p.component}' local_port ${c.local_port}, the manifest's process ${p.name} ${p.port}`,
        );
      if (c.labels.includes("api") !== (p.port !== null))
        problems.push(
          `Tiltfile: COMPONENTS '${p.component}' labels ${JSON.stringify(c.labels)}: "api" exactly when process ${p.name} serves an API port`,
        );
    }
    problems.push(
      ...unknown(
        "Tiltfile",
        "COMPONENTS entry",
        Object.keys(data.COMPONENTS),
        DEPLOYED_PROCESSES.map((p) => p.component),
      ),
    );
    expect(problems).toEqual([]);
  });

  it("runs the local gateway's entry point on its port", () => {
    const gateway = processNamed("gateway");
    expect(data.GATEWAY, "Tiltfile: GATEWAY (manifest process gateway)").toEqual({
      port: gateway.port,
      entrypoint: `${gateway.workspace}/${gateway.entry}`,
    });
  });
});

describe("each process's config.ts defaults to its manifest ports", () => {
  for (const p of PROCESSES.filter((p) => p.name !== "gateway")) {
    it(`${p.name}`, () => {
      const file = `${p.workspace}/src/config.ts`;
      const defaults = [
        ...read(file).matchAll(
          /\.\.\.serviceEnvShape\(\{\s*port:\s*(\d+),\s*internalPort:\s*(\d+)\s*\}\)/g,
        ),
      ].map((m) => `port ${m[1]}, internal port ${m[2]}`);
      const expected = `port ${p.port ?? 0}, internal port ${p.internalPort}`;
      expect(defaults, `${file}: no default ${expected} (manifest process ${p.name})`).toContain(
        expected,
      );
    });
  }

  it("gateway: its port, and upstreams at every routed service's port", () => {
    const config = loadGatewayConfig({});
    const file = "services/gateway/src/config.ts";
    expect(config.PORT, `${file}: default PORT (manifest process gateway)`).toBe(
      processNamed("gateway").port,
    );
    const upstreams = Object.fromEntries(
      upstreamsOf(STACK)
        .split(",")
        .map((u) => u.split("="))
        .map(([name, urls]) => [name, urls!.split("|")]),
    );
    expect(config.GATEWAY_UPSTREAMS, `${file}: default GATEWAY_UPSTREAMS (manifest)`).toEqual(
      upstreams,
    );
  });
});
