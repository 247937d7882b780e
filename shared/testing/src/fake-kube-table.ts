// The server-side printing kubectl asks for (`Accept: application/json;as=Table;v=v1;g=meta.k8s.io`):
// a meta.k8s.io/v1 Table of a resource's printer columns, as the real server builds it from a
// CRD's additionalPrinterColumns, with the JSONPath subset those columns use.
import type { Obj, PrinterColumn, ResourceConfig } from "./fake-kube-store.ts";

const DEFAULT_COLUMNS: PrinterColumn[] = [
  { name: "Created At", type: "date", jsonPath: ".metadata.creationTimestamp" },
];

export function wantsTable(accept: string | undefined): boolean {
  return /as=Table/.test(accept ?? "");
}

export function toTable(
  config: ResourceConfig,
  objects: Obj[],
  resourceVersion: string,
  includeObject: string | undefined,
  now = Date.now(),
): object {
  const columns = config.printerColumns ?? DEFAULT_COLUMNS;
  return {
    kind: "Table",
    apiVersion: "meta.k8s.io/v1",
    metadata: { resourceVersion },
    columnDefinitions: [
      {
        name: "Name",
        type: "string",
        format: "name",
        description: "Name must be unique within a namespace.",
        priority: 0,
      },
      ...columns.map((c) => ({
        name: c.name,
        type: c.type,
        format: c.format ?? "",
        description: c.description ?? "",
        priority: c.priority ?? 0,
      })),
    ],
    rows: objects.map((obj) => ({
      cells: [obj.metadata.name, ...columns.map((c) => cell(c, obj, now))],
      object:
        includeObject === "Object"
          ? obj
          : includeObject === "None"
            ? null
            : {
                kind: "PartialObjectMetadata",
                apiVersion: "meta.k8s.io/v1",
                metadata: obj.metadata,
              },
    })),
  };
}

function cell(column: PrinterColumn, obj: Obj, now: number): unknown {
  const values = jsonPath(obj, column.jsonPath);
  if (values.length === 0) return null;
  if (column.type === "date" && typeof values[0] === "string")
    return humanDuration(now - Date.parse(values[0]));
  if (column.type === "string") return values.map(String).join(" ");
  return values[0];
}

/**
 * The JSONPath of printer columns: `.a.b`, `.a[0]`, `.a[*].b` and `.a[?(@.k=="v")].b`; returns
 * every value found.
 */
export function jsonPath(root: unknown, path: string): unknown[] {
  const steps = path.match(/\.[A-Za-z0-9_-]+|\[[^\]]*\]/g) ?? [];
  let current: unknown[] = [root];
  for (const step of steps) {
    const next: unknown[] = [];
    for (const value of current) {
      if (value === null || value === undefined) continue;
      if (step.startsWith(".")) {
        const child = (value as Record<string, unknown>)[step.slice(1)];
        if (child !== undefined) next.push(child);
        continue;
      }
      if (!Array.isArray(value)) continue;
      const inner = step.slice(1, -1);
      const filter = /^\?\(@\.([A-Za-z0-9_-]+)\s*==\s*["']([^"']*)["']\)$/.exec(inner);
      if (inner === "*") next.push(...value);
      else if (filter)
        next.push(
          ...value.filter(
            (item) => String((item as Record<string, unknown>)?.[filter[1]!]) === filter[2],
          ),
        );
      else if (/^\d+$/.test(inner) && Number(inner) < value.length) next.push(value[Number(inner)]);
    }
    current = next;
  }
  return current;
}

/** k8s.io/apimachinery's duration.HumanDuration, as kubectl shows ages. */
export function humanDuration(ms: number): string {
  const s = Math.floor(ms / 1000);
  if (s < 0) return "0s";
  if (s < 120) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 10) return s % 60 === 0 ? `${m}m` : `${m}m${s % 60}s`;
  if (m < 180) return `${m}m`;
  const h = Math.floor(m / 60);
  if (h < 8) return m % 60 === 0 ? `${h}h` : `${h}h${m % 60}m`;
  if (h < 48) return `${h}h`;
  const d = Math.floor(h / 24);
  if (d < 8) return h % 24 === 0 ? `${d}d` : `${d}d${h % 24}h`;
  return `${d}d`;
}
