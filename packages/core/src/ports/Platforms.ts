// The Platforms port (architecture §Ports; spec §What the service does 7): the tool catalog of every platform
// family, the workspace's connected accounts, what a write would change (for guardrails and the approval page),
// and the call itself. Platform credentials live behind this port only: the core never sees one, and no answer
// carries one (a connected app receives results only). The sandbox platforms implement it, or a host's own
// connectors (docs/embedding.md, Platforms: idempotent writes by `idempotencyToken`, a stable catalogue).
import { Context, Effect, Schema } from "effect"
import type { PlatformFamily, Tool } from "../tools/Tool.ts"
import type { WorkspaceId } from "../workspaces/Workspace.ts"
import type { StoreUnavailable } from "./errors.ts"

/** Spec §Resources: Account: platform, id, name, status. `id` is the `accountId` argument tools take. */
export const Account = Schema.Struct({
  /** The family id, e.g. `gads`. */
  platform: Schema.String,
  id: Schema.String,
  name: Schema.String,
  /** The platform's own status word, e.g. "ENABLED", "ACTIVE", "active". */
  status: Schema.String
})
export type Account = typeof Account.Type

/** The platform could not be reached or answered nothing usable: the call fails closed (REST 503). */
export class PlatformUnavailable extends Schema.TaggedError<PlatformUnavailable>()("PlatformUnavailable", {
  platform: Schema.String,
  message: Schema.String
}) {}

/** A call's answer from the platform: its HTTP-like status and body. 2xx ran; 4xx/5xx ran and refused. */
export interface PlatformAnswer {
  readonly providerStatus: number
  readonly body: Schema.Json
}

/**
 * What a write would change, read from the platform before it runs, for guardrails (change caps, spend caps,
 * protected names) and for the person deciding. Fields a change does not touch are null.
 */
export interface ProposedChange {
  readonly accountId: string | null
  /** The object changed: "campaign", "ad_set", "product", "site_snippet", … and its id and current name. */
  readonly target: { readonly type: string; readonly id: string | null; readonly name: string } | null
  /**
   * A daily budget change, in the account's currency units: `to` is the amount the platform will apply (rounded as it
   * rounds, e.g. to cents), never the unrounded argument, since the change caps judge it (docs/platforms.md).
   */
  readonly dailyBudget: { readonly from: number; readonly to: number } | null
  /** The account's total daily budget over its active objects before the change (spend cap: a cut always passes). */
  readonly accountDailyBudgetBefore: number | null
  /** The account's total daily budget over its active objects after the change (spend cap). */
  readonly accountDailyBudgetAfter: number | null
  /** A status change, in the platform's words. */
  readonly status: { readonly from: string; readonly to: string } | null
  /** One line for people: "Raise the daily budget of "Brand – Search" from 120.00 to 132.00". */
  readonly summary: string
  /**
   * Every object the call names besides `target`, whether or not the platform can read the call: for a raw call,
   * each object of the workspace's account whose id its path or body holds, or whose name a body value is. Protected
   * names are checked on each (a raw write naming a protected campaign is refused even when it cannot be read).
   * Absent or empty: the call names `target` only.
   */
  readonly named?: ReadonlyArray<{ readonly type: string; readonly id: string | null; readonly name: string }>
  /**
   * This call always waits for a person, whatever the credential's write setting (spec §What the service does 6):
   * a property of the call, not of the tool, because a raw call can mean a delete, an activation or website code.
   * For a raw call it is the person's decision of the tool the call means; a raw write the platform cannot read as
   * one of its tools is a person's decision (fail closed).
   */
  readonly personDecision: boolean
}

export interface ToolCall {
  readonly workspaceId: WorkspaceId
  readonly tool: Tool
  readonly arguments: Schema.JsonObject
  /**
   * The same token for every attempt of one logical call (a write request's id, or the caller's Idempotency-Key):
   * a platform that has already applied a call with this token answers its first answer again and changes nothing,
   * so a retry after a crash cannot apply a write twice. Absent for a call that is never retried. A read
   * (kindOfCall) changes nothing, so a platform may run it again instead: the sandbox keeps records for writes only.
   */
  readonly idempotencyToken?: string
}

export interface PlatformsShape {
  /** Every platform family the service offers. */
  readonly families: ReadonlyArray<PlatformFamily>
  /** Every tool of every family, in a stable order. */
  readonly tools: ReadonlyArray<Tool>
  /**
   * The workspace's connected accounts of every family (spec §GET /accounts), or of `family` only: a tool call needs
   * its own platform's, and need not read the others. An adapter may ignore `family`; callers filter anyway. The
   * connections are the service's own records: a store that cannot read them is StoreUnavailable (an outage of ours,
   * 503 temporarily_unavailable), PlatformUnavailable only when a platform itself does not answer.
   */
  readonly accounts: (workspaceId: WorkspaceId, family?: string) => Effect.Effect<ReadonlyArray<Account>, PlatformUnavailable | StoreUnavailable>
  /**
   * What a write call would change. Fails only when the platform cannot be read; a call the platform would refuse
   * (unknown account or object) answers a change with null fields, and `execute` then answers the refusal.
   */
  readonly preview: (call: ToolCall) => Effect.Effect<ProposedChange, PlatformUnavailable>
  /** Runs the call with the workspace's credential for the tool's family; the platform's answer, good or bad. */
  readonly execute: (call: ToolCall) => Effect.Effect<PlatformAnswer, PlatformUnavailable>
}
export class Platforms extends Context.Service<Platforms, PlatformsShape>()("core/ports/Platforms") {}
