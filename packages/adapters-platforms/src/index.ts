// @adgate/adapters-platforms: the Platforms port over the sandbox ad, analytics and store platforms (docs/platforms.md),
// their connections with credentials sealed at rest, and the ToolSearch port over MiniSearch.
export {
  PlatformsSandbox, SandboxConnections, connectSandboxPlatforms, sandboxPlatforms, type SandboxConnectionsShape
} from "./PlatformsSandbox.ts"
export { runPlatformMigrations, platformMigrationsTable } from "./runPlatformMigrations.ts"
export { ToolSearchMiniSearch } from "./ToolSearchMiniSearch.ts"
export { gadsMinimumDailyBudget } from "./sandbox/googleAds.ts"
export { metaMinimumDailyBudget } from "./sandbox/metaAds.ts"
