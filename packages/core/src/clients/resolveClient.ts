// Finding the client behind a client_id (spec §Authentication 4): at authorize a metadata-document client is
// fetched (or taken from its cache) and upserted; the token endpoint looks in the store only and never fetches.
import { Clock, Effect, Option, Result } from "effect"
import type { Client, ClientId } from "./Client.ts"
import { UnknownClient } from "./errors.ts"
import { clampCacheLifetime, isMetadataDocumentClientId, validateMetadataDocument, validateMetadataDocumentUrl } from "./metadataDocument.ts"
import { Issuer } from "../ports/Issuer.ts"
import { MetadataDocumentFetcher } from "../ports/MetadataDocumentFetcher.ts"
import { hitLimit } from "../limits/RateLimits.ts"
import { Prefix } from "../ports/Secrets.ts"
import { ClientStore } from "../ports/ClientStore.ts"
import { runCommand } from "../commands/runCommand.ts"
import { moved } from "../commands/Transition.ts"
import { RecognisedProducts, recogniseClient } from "./recognisedProducts.ts"

/** How long after its cache lifetime ended a document may still be served while its host's fetch budget is spent. */
export const staleServingMs = 24 * 60 * 60 * 1000

const usable = (client: Option.Option<Client>): Option.Option<Client> =>
  Option.filter(client, (c) => c.removedAt === null)

/** The client for GET /oauth/authorize; every failure is UnknownClient, answered with an error page, never a redirect. */
export const resolveClientForAuthorization = Effect.fn("clients.resolveClientForAuthorization")(function* (clientId: ClientId) {
  const clients = yield* ClientStore
  const unknown = (reason: string) => new UnknownClient({ clientId, reason })

  if (clientId.startsWith(Prefix.clientId)) {
    const found = usable(yield* clients.find(clientId))
    if (Option.isNone(found)) return yield* unknown("no such client")
    return found.value
  }
  if (!isMetadataDocumentClientId(clientId)) return yield* unknown("no such client")

  const url = validateMetadataDocumentUrl(clientId)
  if (Result.isFailure(url)) return yield* unknown(url.failure.reason)
  const now = yield* Clock.currentTimeMillis
  const cached = yield* clients.find(clientId)
  if (Option.isSome(cached) && cached.value.removedAt === null && cached.value.cacheUntil !== null && cached.value.cacheUntil > now)
    return cached.value

  // Checklist 123: fetches per document host, whatever the path. A cached document costs nothing; past the limit the
  // person is asked to try again, so the service cannot be made to hammer one host with sign-ins.
  const budget = yield* hitLimit("metadata_fetches_per_host", url.success.host.toLowerCase(), now)
  if (!budget.allowed) {
    // Past the budget, a document that was valid less than a day ago is served as it was, rather than refusing its
    // users because strangers named many documents on the same host (review F13); it is fetched afresh next time.
    if (Option.isSome(cached) && cached.value.removedAt === null && cached.value.cacheUntil !== null && now - cached.value.cacheUntil < staleServingMs)
      return cached.value
    return yield* unknown("too many sign-ins with documents from this host just now; try again in a minute")
  }

  // CIMD §4.4: errors are never cached; a failed fetch or an invalid document leaves the store as it was.
  const issuer = yield* Issuer
  const fetcher = yield* MetadataDocumentFetcher
  // Checklist 118: why the fetch failed (an address, a TLS detail) is logged, never shown to the person.
  const fetched = yield* fetcher.fetch(clientId).pipe(
    Effect.tapError((e) => Effect.logWarning("metadata document fetch failed").pipe(Effect.annotateLogs({ clientId, reason: e.reason }))),
    Effect.mapError(() => unknown("the metadata document could not be fetched")))
  const document = validateMetadataDocument(clientId, fetched.body, issuer.origin)
  if (Result.isFailure(document)) return yield* unknown(document.failure.reason)
  const cacheUntil = now + clampCacheLifetime(fetched.maxAgeSeconds)
  // Recognised by its exact document URL, decided afresh with every fetched copy (its redirect URIs may change).
  const product = recogniseClient(yield* RecognisedProducts,
    { kind: "metadata_document", clientId, redirectUris: document.success.redirectUris })

  // A command on the runner, whose state is the cached row or none: the first sight inserts it, a refresh saves it by
  // compare-and-set; a concurrent refresh of the same document wins or loses whole, and the loser decides again on a
  // fresh load. No event: the cache is bookkeeping, not a change anyone audits; so the write alone, as before.
  const fresh = {
    name: document.success.name,
    redirectUris: document.success.redirectUris,
    authMethod: "none" as const,
    secretHash: null,
    documentHost: url.success.host,
    cacheUntil,
    recognised: product !== null,
    productName: product?.name ?? null
  }
  const refreshed = (current: Option.Option<Client>): Client => Option.match(current, {
    onNone: () => ({
      clientId, version: 1, kind: "metadata_document", workspaceId: null,
      createdAt: now, lastTokenAt: null, removedAt: null, ...fresh
    }),
    // A removed row is a forgotten document: seeing it again starts it afresh, keeping nothing but the row.
    onSome: (c) => ({ ...c, ...fresh, version: c.version + 1, kind: "metadata_document", removedAt: null })
  })
  return yield* runCommand({
    load: Effect.map(clients.find(clientId), Option.some),
    missing: () => unknown("no such client"),
    transition: (current: Option.Option<Client>) => {
      const next = refreshed(current)
      return moved(Option.some(next), next)
    },
    save: (next) => Option.match(next, {
      onNone: () => Effect.void,
      onSome: (c) => c.version === 1 ? clients.insert(c) : clients.save(c)
    })
  }).pipe(Effect.catchTag("Conflict", () => Effect.fail(unknown("the client changed while it was being read"))))
})

/** The client for the token and revocation endpoints: the store only, never a fetch (spec §Authentication 4). */
export const findClientForToken = Effect.fn("clients.findClientForToken")(function* (clientId: ClientId) {
  const clients = yield* ClientStore
  return usable(yield* clients.find(clientId))
})
