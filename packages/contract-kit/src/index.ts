// @adgate/contract-kit: the promises adgate's store and platform ports make, as vitest suites a host runs against its
// own implementations. adgate's memory, PGlite and PostgreSQL stores run these same suites (packages/adapters-sql/test,
// packages/adapters-platforms/test); a host that keeps, say, connections in its own database runs them on its store.
//
//   import { it } from "@effect/vitest"
//   import { connectionStoreContract } from "@adgate/contract-kit"
//   connectionStoreContract("my database", MyConnectionStore, it)
//
// Each contract registers a described group of tests over a layer built once for the group: tests share the store
// and never clash, because every record they make has fresh ids.
export * from "./contracts/index.ts"
export * from "./contracts/fixtures.ts"
export { platformsContract, type BudgetWrite } from "./contracts/Platforms.contract.ts"
export { everyRace, type RaceWorld } from "./races.ts"
export { refreshGrant, seedAdminWorkspace, seedCode } from "./seeds.ts"
