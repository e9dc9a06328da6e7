// The store contracts (@adgate/contract-kit, the suites a host runs on its own stores) against the core's in-memory stores, an embedded PGlite (one per file), and PostgreSQL
// when DATABASE_URL is set (a fresh database, dropped afterwards).
import { CoreMemory, DirectoryMemory, GrantReaderMemory, OperationsMemory } from "@adgate/core/testing"
import { describe, it, layer } from "@effect/vitest"
import { Layer, Option } from "effect"
import { SqlStores } from "../src/index.ts"
import { everyContract } from "@adgate/contract-kit"
import { databaseUrl, pgliteDatabase, postgresDatabase } from "./databases.ts"

everyContract("memory", GrantReaderMemory.pipe(Layer.provideMerge(Layer.merge(CoreMemory, OperationsMemory)), Layer.provideMerge(DirectoryMemory)), it)

layer(pgliteDatabase(), { timeout: "60 seconds" })("PGlite", (it) => {
  everyContract("PGlite", SqlStores, it)
})

describe.skipIf(Option.isNone(databaseUrl))("PostgreSQL", () => {
  layer(postgresDatabase(Option.getOrElse(databaseUrl, () => "")), { timeout: "60 seconds" })("PostgreSQL", (it) => {
    everyContract("PostgreSQL", SqlStores, it)
  })
})
