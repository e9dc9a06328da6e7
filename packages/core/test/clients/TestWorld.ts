// The in-memory world of the clients and authorize tests: every store, Web Crypto secrets, a directory, the issuer
// and a MetadataDocumentFetcher test double answering from a map of URL → document (and recording each fetch).
import { Effect, Layer, Option } from "effect"
import {
  Directory,
  Issuer,
  MetadataDocumentFetcher,
  MetadataDocumentUnavailable,
  type FetchedDocument,
  type Plan,
  type Role,
  WorkspaceId,
  UserId
} from "@adgate/core"
import {
  CoreMemory,
  DirectoryMemory,
  SecretsWebCrypto,
  PlatformsMemory,
  WriteRequestStoreMemory
} from "@adgate/core/testing"

export const ISSUER = "https://as.example"

export interface Documents {
  /** URL → what the fetch answers; a missing URL answers MetadataDocumentUnavailable. */
  readonly served: Map<string, FetchedDocument>
  /** Every URL fetched, in order. */
  readonly fetched: Array<string>
}

export const makeDocuments = (entries: ReadonlyArray<readonly [string, unknown, number?]> = []): Documents => ({
  served: new Map(entries.map(([url, body, maxAge]) => [url, { body, maxAgeSeconds: Option.fromNullishOr(maxAge) }])),
  fetched: []
})

export const documentFetcherLayer = (documents: Documents) =>
  Layer.succeed(MetadataDocumentFetcher, MetadataDocumentFetcher.of({
    fetch: (url) => Effect.suspend(() => {
      documents.fetched.push(url)
      const served = documents.served.get(url)
      return served === undefined
        ? Effect.fail(new MetadataDocumentUnavailable({ url, reason: "status 404" }))
        : Effect.succeed(served)
    })
  }))

/** Workspace ws_1 has accounts of both memory platform families (`ads`, `shop`); ws_2 has none. */
const platforms = PlatformsMemory({
  accounts: [
    { workspaceId: WorkspaceId.make("ws_1"), platform: "ads", id: "ads-1", name: "Ads account", status: "ENABLED" },
    { workspaceId: WorkspaceId.make("ws_1"), platform: "shop", id: "shop-1", name: "Shop", status: "active" }
  ]
})

export const worldLayer = (documents: Documents = makeDocuments()) =>
  Layer.mergeAll(CoreMemory, DirectoryMemory, SecretsWebCrypto, Issuer.layer(ISSUER), documentFetcherLayer(documents), platforms,
    WriteRequestStoreMemory)

/** A workspace on `plan` with one member per entry of `members` (user id → role). */
export const seedWorkspace = (workspaceId: WorkspaceId, plan: Plan, members: Readonly<Record<string, Role>>) =>
  Effect.gen(function* () {
    const directory = yield* Directory
    yield* directory.createWorkspace({ id: workspaceId, name: workspaceId, plan, credits: 100, createdAt: 0 })
    for (const [id, role] of Object.entries(members)) {
      const userId = UserId.make(id)
      yield* directory.createUser({ id: userId, email: `${userId}@people.example`, name: userId, createdAt: 0 })
      yield* directory.setRole(workspaceId, userId, Option.some(role))
    }
  })
