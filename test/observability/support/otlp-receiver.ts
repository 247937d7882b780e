// An OTLP/HTTP receiver for tests: accepts `POST /v1/traces` and `POST /v1/metrics` in the JSON
// encoding (OTEL_EXPORTER_OTLP_PROTOCOL=http/json) from any number of processes and keeps every
// span with its resource, and the resource and metric names of every metrics export. Logs posts are
// accepted and dropped.
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { gunzipSync } from "node:zlib";

/** OTLP span kinds (opentelemetry-proto trace.proto). */
export const KIND = { INTERNAL: 1, SERVER: 2, CLIENT: 3, PRODUCER: 4, CONSUMER: 5 } as const;

export type Attributes = Record<string, string | number | boolean>;
export type ReceivedSpan = {
  traceId: string;
  spanId: string;
  parentSpanId: string | undefined;
  name: string;
  kind: number;
  attributes: Attributes;
  links: Array<{ traceId: string; spanId: string; attributes: Attributes }>;
  status: number;
  resource: Attributes;
};

/** One resource's part of a metrics export: who sent it, and the names of its metrics. */
export type ReceivedMetrics = { resource: Attributes; names: string[] };

export type OtlpReceiver = {
  /** What OTEL_EXPORTER_OTLP_ENDPOINT is set to. */
  endpoint: string;
  spans(): ReceivedSpan[];
  metrics(): ReceivedMetrics[];
  /** Export requests per path (/v1/traces, /v1/metrics, …). */
  posts(): Record<string, number>;
  close(): Promise<void>;
};

type AnyValue = {
  stringValue?: string;
  intValue?: number | string;
  doubleValue?: number;
  boolValue?: boolean;
};
type KeyValue = { key: string; value: AnyValue };

function attributes(list: KeyValue[] | undefined): Attributes {
  const out: Attributes = {};
  for (const { key, value } of list ?? []) {
    if (value.stringValue !== undefined) out[key] = value.stringValue;
    else if (value.intValue !== undefined) out[key] = Number(value.intValue);
    else if (value.doubleValue !== undefined) out[key] = value.doubleValue;
    else if (value.boolValue !== undefined) out[key] = value.boolValue;
  }
  return out;
}

type ExportRequest = {
  resourceSpans?: Array<{
    resource?: { attributes?: KeyValue[] };
    scopeSpans?: Array<{
      spans?: Array<{
        traceId: string;
        spanId: string;
        parentSpanId?: string;
        name: string;
        kind: number;
        attributes?: KeyValue[];
        links?: Array<{ traceId: string; spanId: string; attributes?: KeyValue[] }>;
        status?: { code?: number };
      }>;
    }>;
  }>;
};

type MetricsExportRequest = {
  resourceMetrics?: Array<{
    resource?: { attributes?: KeyValue[] };
    scopeMetrics?: Array<{ metrics?: Array<{ name: string }> }>;
  }>;
};

async function body(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const raw = Buffer.concat(chunks);
  return req.headers["content-encoding"] === "gzip" ? gunzipSync(raw) : raw;
}

export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = [];
  const metrics: ReceivedMetrics[] = [];
  const posts: Record<string, number> = {};
  const server: Server = createServer((req, res) => {
    void (async () => {
      const path = (req.url ?? "/").split("?")[0]!;
      posts[path] = (posts[path] ?? 0) + 1;
      const data = await body(req);
      const exported = req.method === "POST" && (path === "/v1/traces" || path === "/v1/metrics");
      if (exported && !String(req.headers["content-type"]).startsWith("application/json")) {
        res.writeHead(415).end("this receiver takes OTLP/HTTP JSON only");
        return;
      }
      if (exported && path === "/v1/metrics") {
        const request = JSON.parse(data.toString("utf8")) as MetricsExportRequest;
        for (const rm of request.resourceMetrics ?? [])
          metrics.push({
            resource: attributes(rm.resource?.attributes),
            names: (rm.scopeMetrics ?? []).flatMap((sm) => (sm.metrics ?? []).map((m) => m.name)),
          });
      }
      if (exported && path === "/v1/traces") {
        const request = JSON.parse(data.toString("utf8")) as ExportRequest;
        for (const rs of request.resourceSpans ?? []) {
          const resource = attributes(rs.resource?.attributes);
          for (const ss of rs.scopeSpans ?? []) {
            for (const s of ss.spans ?? []) {
              spans.push({
                traceId: s.traceId,
                spanId: s.spanId,
                parentSpanId: s.parentSpanId || undefined,
                name: s.name,
                kind: s.kind,
                attributes: attributes(s.attributes),
                status: s.status?.code ?? 0,
                resource,
                links: (s.links ?? []).map((l) => ({
                  traceId: l.traceId,
                  spanId: l.spanId,
                  attributes: attributes(l.attributes),
                })),
              });
            }
          }
        }
      }
      res.writeHead(200, { "content-type": "application/json" }).end("{}");
    })().catch(() => res.writeHead(400).end());
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    spans: () => [...spans],
    metrics: () => [...metrics],
    posts: () => ({ ...posts }),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
