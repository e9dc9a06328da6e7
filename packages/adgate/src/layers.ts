// adgate for Effect users: the layers a host provides and launches (docs/embedding.md, The Effect entry). The HTTP
// application (every route adgate owns, with its security middleware), the policy it reads (limits, trusted proxies,
// recognised products), and the background work (housekeeping, the outbox readers, the task runner, the mail sender,
// resuming approved writes, ending expired connections). The reference server (apps/server) is composed of these.
import { Layer } from "effect"
import { HousekeepingSchedule, OutboxSchedule } from "@adgate/adapters-sql"
import {
  ExpiredConnectionsSchedule, type InputLimitsShape, InputLimits, RateLimits, type RateLimitPolicy, type RecognisedProduct,
  WorkLeases, type WorkLeasesShape,
  RecognisedProducts, ResumeApprovedWritesSchedule, TaskRunnerConcurrency
} from "@adgate/core"
import { makeHttpApp, MetadataDocumentFetcherHttps, TrustedProxies } from "@adgate/adapters-http"
import { McpRoutes } from "@adgate/adapters-mcp"
import { MailSenderSchedule } from "./MailSender.ts"
import { TaskRunner } from "./taskRunner.ts"

/**
 * Every route adgate owns (docs/embedding.md, The paths adgate owns) on the HttpRouter, with its security middleware.
 * The MCP server joins the same router (and its security middleware) here rather than inside makeHttpApp, so that
 * adapters-http does not depend on adapters-mcp: the two adapters meet only in the composition.
 */
export const adgateRoutes = () => Layer.mergeAll(makeHttpApp(), McpRoutes)

/** The policy adgate's routes read; anything not given keeps its default (docs/limits.md). */
export interface AdgatePolicy {
  readonly rateLimits?: RateLimitPolicy | undefined
  readonly inputLimits?: InputLimitsShape | undefined
  /** Addresses and CIDR ranges of the reverse proxies whose X-Forwarded-For is believed; none by default. */
  readonly trustedProxies?: ReadonlyArray<string> | undefined
  /** The recognised products (docs/decisions.md); the built-in list by default. */
  readonly recognisedProducts?: ReadonlyArray<RecognisedProduct> | undefined
  /** How long claimed background work is held before another process takes it over (docs/limits.md, Leases). */
  readonly workLeases?: WorkLeasesShape | undefined
  /** How many tasks a process runs side by side (docs/limits.md); 8 by default. */
  readonly taskRunnerConcurrency?: number | undefined
}

/** The policy as layers: each given value replaces its reference's default. */
export const adgatePolicy = (policy: AdgatePolicy) =>
  Layer.mergeAll(
    policy.rateLimits === undefined ? Layer.empty : Layer.succeed(RateLimits, policy.rateLimits),
    policy.inputLimits === undefined ? Layer.empty : Layer.succeed(InputLimits, policy.inputLimits),
    policy.trustedProxies === undefined ? Layer.empty : Layer.succeed(TrustedProxies, policy.trustedProxies),
    policy.recognisedProducts === undefined ? Layer.empty : Layer.succeed(RecognisedProducts, policy.recognisedProducts),
    policy.workLeases === undefined ? Layer.empty : Layer.succeed(WorkLeases, policy.workLeases),
    policy.taskRunnerConcurrency === undefined ? Layer.empty : Layer.succeed(TaskRunnerConcurrency, policy.taskRunnerConcurrency)
  )

/** Fetches client ID metadata documents over https (docs/decisions.md), for the routes. */
export const adgateMetadataFetcher = MetadataDocumentFetcherHttps()

/**
 * The background work, each a loop for the life of the layer, safe to run in every process sharing one database:
 * housekeeping, resuming approved writes whose process died, ending connections past their 365 days, the event
 * outbox's readers, the task runner and the mail sender (through MailDelivery).
 */
export const adgateBackground = () =>
  Layer.mergeAll(
    HousekeepingSchedule,
    // Approved writes whose executing process died (or was never claimed) run again (docs/decisions.md, Write requests).
    ResumeApprovedWritesSchedule,
    // Connections past their 365 days end (and are audited) without waiting for a refresh (spec §States: Connection).
    ExpiredConnectionsSchedule,
    OutboxSchedule,
    TaskRunner,
    MailSenderSchedule()
  )
