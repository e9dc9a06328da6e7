// Where a call goes once it is allowed (spec §What the service does 6; architecture §One tool pipeline, "route"):
// a read runs now; a write runs now only when the credential applies ordinary changes at once and neither the tool
// nor the call (its preview: a raw call meaning a delete, an activation, website code) is a person's decision;
// otherwise it waits in the approval queue. Pure.
import type { WaitReason } from "../approvals/WriteRequest.ts"
import type { ProposedChange } from "../ports/Platforms.ts"
import type { WriteMode } from "../scopes/Scope.ts"
import type { Tool } from "./Tool.ts"
import type { ToolKind } from "./ToolUsage.ts"

export type Route =
  | { readonly _tag: "RunNow" }
  | { readonly _tag: "Queue"; readonly reason: WaitReason }

/** The status words of the platforms that make an object deliver and spend (Google ENABLED, Meta ACTIVE, Shopify active). */
const activeStatuses: ReadonlySet<string> = new Set(["active", "enabled"])

/** Whether the change sets a status to active (from anything else): an activation, whatever the tool is called. */
export const activates = (change: ProposedChange): boolean =>
  change.status !== null && activeStatuses.has(change.status.to.toLowerCase()) && change.status.from.toLowerCase() !== change.status.to.toLowerCase()

/**
 * Whether a preview cannot tell what the call changes: no object, no budget and no status. A raw write previewed so
 * is a person's decision whatever the platform says (fail closed).
 */
export const previewTellsNothing = (change: ProposedChange): boolean =>
  change.target === null && change.dailyBudget === null && change.status === null

export const routeCall = (tool: Tool, kind: ToolKind, writeMode: WriteMode, change: ProposedChange | null): Route => {
  if (kind === "read") return { _tag: "RunNow" }
  // Deletes, activations, website code and platform-marked changes wait whatever the setting (spec §Consent page).
  // A write without a preview cannot show what it means: it waits for a person too (fail closed). So does an
  // activation the preview shows, whatever the tool (a raw write setting a status to ACTIVE beside a budget), and a
  // raw write whose preview cannot tell what it changes.
  if (tool.personDecision || change === null || change.personDecision || activates(change) || (tool.raw && previewTellsNothing(change))) {
    return { _tag: "Queue", reason: "person_decision" }
  }
  // Raw writes follow the same rule: "queued for approval by default", i.e. unless the credential applies at once.
  return writeMode === "apply" ? { _tag: "RunNow" } : { _tag: "Queue", reason: "approval" }
}
