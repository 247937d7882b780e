import {
  context,
  propagation,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
} from "@opentelemetry/api";
import type { RequestHandler } from "express";
import { markIncoming } from "@svc/telemetry";

const tracer = trace.getTracer("@svc/http");

/**
 * One SERVER span per request (OpenTelemetry HTTP semantic conventions), in the caller's W3C trace
 * (its context is marked as a caller's: whether its sampled flag decides is the sampler's
 * TRACE_INCOMING_CONTEXT), and the rest of the request handled inside it: database, NATS and outgoing
 * spans become its children, log lines carry its ids. Named by the route express matched
 * (`GET /v1/vacancies/:uuid`), set when the response is done. One span and no per-layer wrapping
 * (why: docs/decisions/tracing-cost.md). Without an OpenTelemetry SDK it records nothing.
 */
export function serverSpans(): RequestHandler {
  return (req, res, next) => {
    const extracted = propagation.extract(ROOT_CONTEXT, req.headers);
    const parent = trace.getSpanContext(extracted) ? markIncoming(extracted) : extracted;
    const span = tracer.startSpan(
      req.method,
      {
        kind: SpanKind.SERVER,
        attributes: {
          "http.request.method": req.method,
          "url.path": req.path,
          "url.scheme": req.protocol,
        },
      },
      parent,
    );
    if (!span.isRecording()) return context.with(trace.setSpan(parent, span), next);
    res.once("close", () => {
      const route = req.route ? `${req.baseUrl}${String(req.route.path)}` : undefined;
      if (route) {
        span.updateName(`${req.method} ${route}`);
        span.setAttribute("http.route", route);
      }
      span.setAttribute("http.response.status_code", res.statusCode);
      if (!res.writableFinished) {
        span.setAttribute("error.type", "aborted");
        span.setStatus({
          code: SpanStatusCode.ERROR,
          message: "the connection closed before the response was sent",
        });
      } else if (res.statusCode >= 500) {
        span.setAttribute("error.type", String(res.statusCode));
        span.setStatus({ code: SpanStatusCode.ERROR });
      }
      span.end();
    });
    context.with(trace.setSpan(parent, span), next);
  };
}
