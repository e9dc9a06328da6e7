// Fetches a client ID metadata document (spec §Authentication 4). The adapter enforces https, no redirects,
// 64 KB, 5 seconds and the SSRF address rules; the core validates the document and clamps the cache lifetime.
import { Context, Effect, Option, Schema } from "effect"

export class MetadataDocumentUnavailable extends Schema.TaggedError<MetadataDocumentUnavailable>()(
  "MetadataDocumentUnavailable",
  { url: Schema.String, reason: Schema.String }
) {}

export interface FetchedDocument {
  /** The parsed JSON body (validated by the core). */
  readonly body: unknown
  /** Seconds from Cache-Control max-age, if any. */
  readonly maxAgeSeconds: Option.Option<number>
}

export interface MetadataDocumentFetcherShape {
  readonly fetch: (url: string) => Effect.Effect<FetchedDocument, MetadataDocumentUnavailable>
}
export class MetadataDocumentFetcher extends Context.Service<MetadataDocumentFetcher, MetadataDocumentFetcherShape>()(
  "core/ports/MetadataDocumentFetcher"
) {}
