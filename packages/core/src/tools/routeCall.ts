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

export const routeCall = (tool: Tool, kind: ToolKind, writeMode: WriteMode, change: ProposedChange | null): Route => {
  if (kind === "read") return { _tag: "RunNow" }
  // Deletes, activations, website code and platform-marked changes wait whatever the setting (spec §Consent page).
  // A write without a preview cannot show what it means: it waits for a person too (fail closed).
  if (tool.personDecision || change === null || change.personDecision) return { _tag: "Queue", reason: "person_decision" }
  // Raw writes follow the same rule: "queued for approval by default", i.e. unless the credential applies at once.
  return writeMode === "apply" ? { _tag: "RunNow" } : { _tag: "Queue", reason: "approval" }
}
