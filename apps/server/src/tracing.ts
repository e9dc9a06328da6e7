// Traces through OpenTelemetry (docs/operations.md, Traces): Effect's own integration (@effect/opentelemetry) over the
// OpenTelemetry SDK, exported over OTLP/HTTP only when an endpoint is configured with the standard variables
// (OTEL_EXPORTER_OTLP_ENDPOINT or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT, OTEL_SERVICE_NAME, OTEL_TRACES_SAMPLER …).
// Effect's HTTP server opens one server span per request (its parent the request's W3C `traceparent`, when it has
// one) and the router notes the route's pattern on it; every traced function and SQL statement below is a child span.
// What leaves the process is cut to an allow-list (`exportedView`): no span may carry a secret, a token, a code, a
// key, a password or an argument value, and the SQL text is the statement with its `$n` placeholders, never a value.
// The OpenTelemetry SDK is loaded only when an endpoint is configured (otelTracing.ts): a server without it never
// loads those modules.
import { Config, Effect, Layer, Option, Redacted, References, Schema } from "effect"
import type { SpanExporter } from "@opentelemetry/sdk-trace-base"

/** Where and how spans are exported, read from the standard OpenTelemetry variables. */
export interface TraceExport {
  /** The OTLP/HTTP traces URL: OTEL_EXPORTER_OTLP_TRACES_ENDPOINT as given, or OTEL_EXPORTER_OTLP_ENDPOINT + `/v1/traces`. */
  readonly url: string
  /** OTEL_EXPORTER_OTLP_(TRACES_)HEADERS: a collector's or vendor's credentials, sent with each export and never logged. */
  readonly headers: Redacted.Redacted<Readonly<Record<string, string>>>
  /** OTEL_EXPORTER_OTLP_(TRACES_)TIMEOUT, ms: how long one export may take (default 10 000). */
  readonly timeoutMs: number
  /** OTEL_SERVICE_NAME (default `adgate`). */
  readonly serviceName: string
  /** OTEL_TRACES_SAMPLER and OTEL_TRACES_SAMPLER_ARG (default `parentbased_always_on`). */
  readonly sampler: { readonly name: SamplerName; readonly ratio: number }
  /** OTEL_BSP_*: the batch processor's delay, queue, batch size and export timeout (the specification's defaults). */
  readonly batch: {
    readonly scheduledDelayMillis: number
    readonly maxQueueSize: number
    readonly maxExportBatchSize: number
    readonly exportTimeoutMillis: number
  }
}

const samplerNames = [
  "always_on", "always_off", "traceidratio", "parentbased_always_on", "parentbased_always_off", "parentbased_traceidratio"
] as const
export type SamplerName = typeof samplerNames[number]

const positiveInt = (name: string, fallback: number) =>
  Config.schema(Schema.Int.check(Schema.isGreaterThan(0)), name).pipe(Config.withDefault(fallback))

const firstOf = <A>(specific: Config.Config<Option.Option<A>>, general: Config.Config<Option.Option<A>>) =>
  Config.all([specific, general]).pipe(Config.map(([a, b]) => Option.orElse(a, () => b)))

const headerList = (name: string) => Config.option(Config.Record(Schema.String, Schema.StringFromUriComponent, name))

/**
 * The export, or none: none unless an OTLP endpoint is set, and none when OTEL_SDK_DISABLED=true or
 * OTEL_TRACES_EXPORTER=none. adgate sends OTLP over HTTP with JSON bodies, which every OTLP/HTTP receiver accepts;
 * OTEL_EXPORTER_OTLP_PROTOCOL=grpc is refused at start rather than silently ignored.
 */
export const loadTraceExport = Effect.gen(function* () {
  const disabled = yield* Config.Boolean("OTEL_SDK_DISABLED").pipe(Config.withDefault(false))
  const exporter = yield* Config.Literals(["otlp", "none"], "OTEL_TRACES_EXPORTER").pipe(Config.withDefault("otlp" as const))
  const specific = yield* Config.option(Config.URL("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"))
  const general = yield* Config.option(Config.URL("OTEL_EXPORTER_OTLP_ENDPOINT"))
  if (disabled || exporter === "none" || (Option.isNone(specific) && Option.isNone(general))) return Option.none<TraceExport>()
  yield* firstOf(
    Config.option(Config.Literals(["http/json", "http/protobuf"], "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL")),
    Config.option(Config.Literals(["http/json", "http/protobuf"], "OTEL_EXPORTER_OTLP_PROTOCOL"))
  )
  const url = Option.match(specific, {
    onSome: (u) => u.href,
    onNone: () => {
      const base = Option.getOrThrow(general)
      return `${base.href.replace(/\/+$/, "")}/v1/traces`
    }
  })
  const headers = yield* firstOf(headerList("OTEL_EXPORTER_OTLP_TRACES_HEADERS"), headerList("OTEL_EXPORTER_OTLP_HEADERS"))
  const timeoutMs = yield* firstOf(
    Config.option(positiveInt("OTEL_EXPORTER_OTLP_TRACES_TIMEOUT", 10_000)),
    Config.option(positiveInt("OTEL_EXPORTER_OTLP_TIMEOUT", 10_000))
  )
  const samplerName = yield* Config.Literals(samplerNames, "OTEL_TRACES_SAMPLER").pipe(Config.withDefault("parentbased_always_on" as const))
  const ratio = yield* Config.schema(Schema.Finite.check(Schema.isBetween({ minimum: 0, maximum: 1 })), "OTEL_TRACES_SAMPLER_ARG").pipe(
    Config.withDefault(1)
  )
  return Option.some<TraceExport>({
    url,
    headers: Redacted.make(Option.getOrElse(headers, () => ({}))),
    timeoutMs: Option.getOrElse(timeoutMs, () => 10_000),
    serviceName: yield* Config.NonEmptyString("OTEL_SERVICE_NAME").pipe(Config.withDefault("adgate")),
    sampler: { name: samplerName, ratio },
    batch: {
      scheduledDelayMillis: yield* positiveInt("OTEL_BSP_SCHEDULE_DELAY", 5_000),
      maxQueueSize: yield* positiveInt("OTEL_BSP_MAX_QUEUE_SIZE", 2_048),
      maxExportBatchSize: yield* positiveInt("OTEL_BSP_MAX_EXPORT_BATCH_SIZE", 512),
      exportTimeoutMillis: yield* positiveInt("OTEL_BSP_EXPORT_TIMEOUT", 30_000)
    }
  })
})

/**
 * Tracing for the server's layer, from the environment: exported when an OTLP endpoint is configured; else spans
 * recorded but seen by nobody with ADGATE_TRACING=on (`recordSpans`); else off, each traced call a no-op.
 */
export const TracingLayer = (recordSpans: boolean, exporter?: SpanExporter) =>
  Layer.unwrap(Effect.map(loadTraceExport, Option.match({
    onSome: (traceExport) =>
      Layer.unwrap(Effect.map(Effect.promise(() => import("./otelTracing.ts")), (otel) => otel.otelTracing(traceExport, exporter))),
    onNone: () => Layer.succeed(References.TracerEnabled, recordSpans)
  })))
