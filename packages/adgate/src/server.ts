// adgate/server: what a host that runs adgate as its own process reuses from the reference server (apps/server):
// listening on a port with a graceful drain, readiness with a shutdown flag, Prometheus metrics on their own listener,
// the development mailbox, the mail's HTML part and page addresses, the migrations' and outbox's probes, and the
// sandbox platforms' first-start connection. Effect layers and functions, like the main entry's layers.
export {
  absolute, DevelopmentMailbox, type DevelopmentMailboxShape, mailHtml, makeMetrics, makeShutdownFlag, metricsLayer, pagePaths,
  Readiness, type ReadinessChecks, serveHttp, type ServeOptions, serveMetrics, TrustedProxies, compileTrustedProxies
} from "@adgate/adapters-http"
export { answerParseErrorsGently, defaultGentleClose, type GentleCloseOptions } from "@adgate/adapters-http/gentleClose"
export { databaseConnections, dataFolderInUse, outboxBacklog, pendingMigrations, workInProgress } from "@adgate/adapters-sql"
export { connectSandboxPlatforms } from "@adgate/adapters-platforms"
