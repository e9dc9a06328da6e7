// The OpenTelemetry side of tracing.ts, loaded only when traces are exported: the SDK's tracer provider under Effect's
// own integration (@effect/opentelemetry), its sampler, the batch processor and the OTLP/HTTP exporter, and the view
// of each span that is allowed to leave the process.
import { Effect, Layer, Redacted, References } from "effect"
import * as OtelTracer from "@effect/opentelemetry/OtelTracer"
import * as OtelResource from "@effect/opentelemetry/Resource"
import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-http"
import {
  AlwaysOffSampler, AlwaysOnSampler, BasicTracerProvider, BatchSpanProcessor, ParentBasedSampler, type ReadableSpan,
  type Sampler, type Span, type SpanExporter, type SpanProcessor, TraceIdRatioBasedSampler
} from "@opentelemetry/sdk-trace-base"
import { SpanKind, type Attributes, type Context as OtelContext } from "@opentelemetry/api"
import type { TraceExport } from "./tracing.ts"

const samplerOf = ({ name, ratio }: TraceExport["sampler"]): Sampler => {
  switch (name) {
    case "always_on": return new AlwaysOnSampler()
    case "always_off": return new AlwaysOffSampler()
    case "traceidratio": return new TraceIdRatioBasedSampler(ratio)
    case "parentbased_always_on": return new ParentBasedSampler({ root: new AlwaysOnSampler() })
    case "parentbased_always_off": return new ParentBasedSampler({ root: new AlwaysOffSampler() })
    case "parentbased_traceidratio": return new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(ratio) })
  }
}

/**
 * The attributes a span may take out of the process: the HTTP method, status and route pattern (not the path or the
 * query, which a client fills), the database's name and the statement text with placeholders, the tool's name, and
 * Effect's interruption flag. Everything else (user agent, client address, headers, stack traces) stays here.
 */
const exportedAttributes: ReadonlySet<string> = new Set([
  "http.request.method", "http.response.status_code", "http.route", "url.scheme", "server.address", "server.port",
  "db.system.name", "db.namespace", "db.query.text", "db.operation.name", "db.client.connection.wait_time_ms",
  "effect.sql.method", "effect.fiber.interrupted", "tool"
])

const keptAttributes = (attributes: Attributes): Attributes => {
  const kept: Attributes = {}
  for (const key in attributes) if (exportedAttributes.has(key)) kept[key] = attributes[key]
  return kept
}

/**
 * What an ended span looks like to the exporter. A server span is named `METHOD /route/:pattern` (OpenTelemetry's
 * HTTP convention; the span is opened before routing, so the router's `http.route` names it here), or `METHOD` when
 * no route matched. A failure keeps its error type: the message, which may echo input, and the stack are dropped,
 * as are every other event (log lines) and the links' attributes.
 */
export const exportedView = (span: ReadableSpan): ReadableSpan => {
  const route = span.attributes["http.route"]
  const method = span.attributes["http.request.method"]
  const name = span.kind === SpanKind.SERVER && typeof method === "string"
    ? typeof route === "string" ? `${method} ${route}` : method
    : span.name
  const events = span.events
    .filter((event) => event.name === "exception")
    .map((event) => ({
      name: event.name,
      time: event.time,
      attributes: typeof event.attributes?.["exception.type"] === "string" ? { "exception.type": event.attributes["exception.type"] } : {}
    }))
  return {
    name,
    kind: span.kind,
    spanContext: () => span.spanContext(),
    ...(span.parentSpanContext === undefined ? {} : { parentSpanContext: span.parentSpanContext }),
    startTime: span.startTime,
    endTime: span.endTime,
    status: { code: span.status.code },
    attributes: keptAttributes(span.attributes),
    links: span.links.map((link) => ({ context: link.context })),
    events,
    duration: span.duration,
    ended: span.ended,
    resource: span.resource,
    instrumentationScope: span.instrumentationScope,
    droppedAttributesCount: span.droppedAttributesCount,
    droppedEventsCount: span.droppedEventsCount,
    droppedLinksCount: span.droppedLinksCount
  }
}

/** Hands the exporter's processor only the exported view of each span. */
class ExportedViewProcessor implements SpanProcessor {
  readonly next: SpanProcessor
  constructor(next: SpanProcessor) { this.next = next }
  onStart(span: Span, context: OtelContext) { this.next.onStart(span, context) }
  onEnd(span: ReadableSpan) { this.next.onEnd(exportedView(span)) }
  forceFlush() { return this.next.forceFlush() }
  shutdown() { return this.next.shutdown() }
}

/**
 * The tracer for the whole server: the OTLP exporter, or `exporter` in its place (tests: an in-memory one). The
 * provider is flushed and shut down with the layer (at most the export timeout), so a stop loses no ended span.
 */
export const otelTracing = (traceExport: TraceExport, exporter?: SpanExporter) =>
  OtelTracer.layer.pipe(
    Layer.provide(Layer.effect(OtelTracer.OtelTracerProvider, Effect.gen(function* () {
      const resource = yield* OtelResource.Resource
      const out = exporter ?? new OTLPTraceExporter({
        url: traceExport.url,
        headers: { ...Redacted.value(traceExport.headers) },
        timeoutMillis: traceExport.timeoutMs
      })
      return yield* Effect.acquireRelease(
        Effect.sync(() => new BasicTracerProvider({
          resource,
          sampler: samplerOf(traceExport.sampler),
          spanProcessors: [new ExportedViewProcessor(new BatchSpanProcessor(out, traceExport.batch))]
        })),
        (provider) => Effect.promise(() => provider.forceFlush().finally(() => provider.shutdown())).pipe(
          Effect.ignore,
          Effect.timeoutOption(traceExport.batch.exportTimeoutMillis)
        )
      )
    }))),
    // OTEL_RESOURCE_ATTRIBUTES is added to the resource (deployment.environment, service.instance.id …).
    Layer.provide(OtelResource.layerFromEnv({ "service.name": traceExport.serviceName })),
    Layer.merge(Layer.succeed(References.TracerEnabled, true))
  )

