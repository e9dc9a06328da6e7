// The consent page lifecycle (spec §States: Consent page, §Authentication 9; checklist M 154–161): one branch per
// row. Pure: `now` is an argument; the caller hashes the posted CSRF token through the Secrets port.
import { Result } from "effect"
import type { ConsentPage } from "./ConsentPage.ts"
import { constantTimeEqual } from "../credentials/constantTimeEqual.ts"
import { ConsentAlreadyDecided, ConsentPageExpired, ConsentRestartRequired, CsrfMismatch } from "./errors.ts"
import type { SecretHash } from "../ports/Secrets.ts"
import type { WorkspaceId, UserId } from "../workspaces/Workspace.ts"

/** A consent page is valid 10 minutes from opening (spec §Limits). */
export const consentPageLifetimeMs = 10 * 60 * 1000

export interface Decide {
  readonly _tag: "Decide"
  /** Allow access, or Cancel (also used when no permission was approved). */
  readonly answer: "Allow" | "Cancel"
  /** The signed-in person and the workspace chosen at the moment of the post. */
  readonly userId: UserId
  readonly workspaceId: WorkspaceId
  /** SHA-256 of the posted CSRF token. */
  readonly csrfHash: SecretHash
}
export type ConsentEvent = Decide

export type ConsentRefusal = CsrfMismatch | ConsentRestartRequired | ConsentAlreadyDecided | ConsentPageExpired

export const transitionConsentPage = (
  page: ConsentPage,
  event: ConsentEvent,
  now: number
): Result.Result<{ readonly next: ConsentPage }, ConsentRefusal> => {
  switch (event._tag) {
    case "Decide": {
      // RFC 6749 §10.12: a post without this page's CSRF token is forged; nothing about the page is revealed.
      if (!constantTimeEqual(event.csrfHash, page.csrfHash)) return Result.fail(new CsrfMismatch())
      // Spec §States: Consent page: a switch of account or workspace after opening restarts the flow from the app.
      if (event.userId !== page.userId || event.workspaceId !== page.workspaceId) return Result.fail(new ConsentRestartRequired())
      // Spec §Authentication 9: each approval is posted once; a double click or a replay issues nothing more.
      if (page.status !== "open") return Result.fail(new ConsentAlreadyDecided())
      // Spec §Limits: valid 10 minutes from opening.
      if (now >= page.expiresAt) return Result.fail(new ConsentPageExpired())
      const status = event.answer === "Allow" ? "approved" as const : "declined" as const
      return Result.succeed({ next: { ...page, status, version: page.version + 1 } })
    }
  }
}
