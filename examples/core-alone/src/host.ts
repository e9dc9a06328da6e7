// The whole of adgate's core for this host: the stores it keeps itself (hostStores.ts) and, for the ports it leaves
// to adgate, adgate's in-memory implementations; Web Crypto secrets, the issuer's origin, no platforms yet, and no
// fetching of client metadata documents (this host registers its apps dynamically).
import { Issuer, MetadataDocumentFetcher, MetadataDocumentUnavailable, Platforms, PlatformUnavailable } from "@adgate/core"
import {
  ApiKeyStoreMemory, AuditLogMemory, CreditsLedgerMemory, DirectoryMemory, EventOutboxMemory, GrantReaderMemory,
  GuardrailStoreMemory, IdempotencyStoreMemory, MailerMemory, memoryOutboxReaders, PeopleStoreMemory, RateLimiterMemory,
  SecretsWebCrypto, TaskStoreMemory, ToolUsageLogMemory
} from "@adgate/core/testing"
import { Effect, Layer } from "effect"
import { type HostDatabase, hostStores } from "./hostStores.ts"

export const origin = "https://ads.host.example"

/** A host with no ad platforms connected yet: an empty catalogue; nothing to call. */
const noPlatforms = Layer.succeed(Platforms, Platforms.of({
  families: [],
  tools: [],
  accounts: () => Effect.succeed([]),
  preview: (call) => Effect.fail(new PlatformUnavailable({ platform: call.tool.family, message: "no platforms" })),
  execute: (call) => Effect.fail(new PlatformUnavailable({ platform: call.tool.family, message: "no platforms" }))
}))

const noMetadataDocuments = Layer.succeed(MetadataDocumentFetcher, MetadataDocumentFetcher.of({
  fetch: (url) => Effect.fail(new MetadataDocumentUnavailable({ url, reason: "this host does not fetch client metadata documents" }))
}))

/** Every port the core's services read, the host's stores on `db`. */
export const hostWorld = (db: HostDatabase) => {
  // The credits ledger keeps its balance on the directory's workspaces.
  const adgateKept = Layer.mergeAll(
    AuditLogMemory, MailerMemory, PeopleStoreMemory, RateLimiterMemory, ApiKeyStoreMemory,
    IdempotencyStoreMemory, CreditsLedgerMemory, TaskStoreMemory, ToolUsageLogMemory, GuardrailStoreMemory,
    EventOutboxMemory(memoryOutboxReaders), noPlatforms, noMetadataDocuments
  ).pipe(Layer.provideMerge(DirectoryMemory))
  const stores = Layer.merge(hostStores(db), adgateKept)
  // The one-read grant lookups, composed from the stores above (the host's connections, codes and clients).
  return Layer.mergeAll(GrantReaderMemory.pipe(Layer.provideMerge(stores)), SecretsWebCrypto, Issuer.layer(origin))
}
