// Allow access or Cancel on the consent page (spec §GET /oauth/authorize "After the person decides", §States:
// Consent page, §Authentication 9; RFC 6749 §4.1.2, RFC 9207). The page is saved with compare-and-set before a
// code is issued, so two concurrent posts of one page issue at most one code; the page, the code (or the
// ConsentDeclined event) are one transaction, so a failure leaves the page open for a retry (docs/decisions.md §Atomicity).
import { Clock, Effect, Option, Result } from "effect"
import { loadReadFirst, runCommand } from "../commands/runCommand.ts"
import { moved, refused, type Transition } from "../commands/Transition.ts"
import { authorizationResponseUrl } from "./authorizationResponseUrl.ts"
import { connectedPlatforms } from "./connectedPlatforms.ts"
import type { ConsentDecision, ConsentPage, ConsentPageId } from "./ConsentPage.ts"
import { ConsentAlreadyDecided, ConsentPageNotFound, InvalidConsentDecision } from "./errors.ts"
import { connectingRole } from "./openConsentPage.ts"
import { type ConsentRefusal, transitionConsentPage } from "./transitionConsentPage.ts"
import type { AuthorizationCode } from "../codes/AuthorizationCode.ts"
import { codeLifetimeMs } from "../codes/transitionCode.ts"
import { Issuer } from "../ports/Issuer.ts"
import { Prefix, Secrets, type SecretHash } from "../ports/Secrets.ts"
import { CodeStore } from "../ports/CodeStore.ts"
import { ConsentStore } from "../ports/ConsentStore.ts"
import { canGrant, formatScopes, isToolScope, makesChanges, parseScopes } from "../scopes/grant.ts"
import type { Plan, Role, WorkspaceId, UserId } from "../workspaces/Workspace.ts"

const maxPlatformNameLength = 100

export type ConsentAnswer = { readonly _tag: "Allow"; readonly decision: ConsentDecision } | { readonly _tag: "Cancel" }

export interface DecideConsentInput {
  readonly pageId: ConsentPageId
  readonly csrfToken: string
  /** The signed-in person and chosen workspace at the moment of the post. */
  readonly userId: UserId
  readonly workspaceId: WorkspaceId
  readonly answer: ConsentAnswer
}

/**
 * Re-checks a posted choice against the page and the person's current role and plan: only asked scopes, each
 * grantable now; "apply at once" only for an admin; platforms "all" or a non-empty list of the workspace's
 * connected families (`connected`, read when a list was posted). Scopes come back in canonical order; without a
 * change-making scope the write setting is the default, and without a platform-tool scope the platforms are "all"
 * (the choice could never take effect).
 */
export const checkConsentDecision = (
  page: ConsentPage,
  decision: ConsentDecision,
  role: Role,
  plan: Plan,
  connected: ReadonlyArray<string> = []
): Result.Result<ConsentDecision, InvalidConsentDecision> => {
  const fail = (description: string) => Result.fail(new InvalidConsentDecision({ description }))
  for (const scope of decision.scopes) {
    if (!page.request.scopes.includes(scope)) return fail(`${scope} was not asked for`)
    if (!canGrant(scope, role, plan)) return fail(`${scope} cannot be granted by this person in this workspace`)
  }
  if (decision.writeMode === "apply" && role !== "admin") return fail("only a workspace admin may apply changes at once")
  const platforms = decision.platforms
  if (platforms !== "all" && platforms.some((p) => p.length === 0 || p.length > maxPlatformNameLength))
    return fail("a platform name is empty or too long")
  const scopes = parseScopes(formatScopes(decision.scopes))
  const ticked = platforms === "all" || !scopes.some(isToolScope) ? "all" : [...new Set(platforms)]
  if (ticked !== "all") {
    if (ticked.length === 0) return fail("choose at least one platform, or all connected platforms")
    const unconnected = ticked.find((family) => !connected.includes(family))
    if (unconnected !== undefined) return fail(`${unconnected} is not a connected platform of this workspace`)
  }
  return Result.succeed({
    scopes,
    platforms: ticked,
    writeMode: makesChanges(scopes) ? decision.writeMode : "wait"
  })
}

/** What an accepted decision leaves: the decided page and the grant (null: declined, or nothing approved). */
interface Decided {
  readonly page: ConsentPage
  readonly grant: ConsentDecision | null
  readonly cancelled: boolean
  /** The decision's time: the code's issuedAt. */
  readonly now: number
}

/**
 * The decision as the runner's Transition, pure: the page's own checks first (CSRF, session, single use, expiry: a
 * forged or stale post learns nothing about the choice), then the choice against the role and plan read just before
 * (`checked`; none for Cancel). A decline causes one ConsentDeclined (the "connection.declined" audit entry).
 */
export const decideTransition = (
  page: ConsentPage, input: DecideConsentInput, csrfHash: SecretHash,
  checked: { readonly role: Role; readonly plan: Plan; readonly connected: ReadonlyArray<string> } | null, now: number
): Transition<ConsentPage, Decided, ConsentRefusal | InvalidConsentDecision> => {
  const event = { _tag: "Decide" as const, userId: input.userId, workspaceId: input.workspaceId, csrfHash }
  const first = transitionConsentPage(page, { ...event, answer: input.answer._tag }, now)
  if (Result.isFailure(first)) return refused(first.failure)
  let grant: ConsentDecision | null = null
  if (input.answer._tag === "Allow" && checked !== null) {
    const choice = checkConsentDecision(page, input.answer.decision, checked.role, checked.plan, checked.connected)
    if (Result.isFailure(choice)) return refused(choice.failure)
    // Spec: approving no permission is answered access_denied.
    grant = choice.success.scopes.length === 0 ? null : choice.success
  }
  const decided = transitionConsentPage(page, { ...event, answer: grant === null ? "Cancel" : "Allow" }, now)
  if (Result.isFailure(decided)) return refused(decided.failure)
  const next = decided.success.next
  const cancelled = input.answer._tag === "Cancel"
  if (grant !== null) return moved(next, { page: next, grant, cancelled, now })
  return moved(next, { page: next, grant, cancelled, now }, [{
    _tag: "ConsentDeclined", at: now, workspaceId: next.workspaceId, userId: next.userId, clientId: next.request.clientId,
    scopesAsked: formatScopes(next.request.scopes), surface: next.request.surface,
    reason: cancelled ? "cancelled" : "no_permission_approved"
  }])
}

export const decideConsent = Effect.fn("authorize.decideConsent")(function* (input: DecideConsentInput) {
  const secrets = yield* Secrets
  const consents = yield* ConsentStore
  const csrfHash = yield* secrets.hash(input.csrfToken)
  const located = yield* consents.find(input.pageId)
  if (Option.isNone(located)) return yield* new ConsentPageNotFound()
  // The page's own checks before the Directory is asked (a forged post learns nothing); then the role and plan, read
  // before the command so that a Directory failure cannot abort its transaction.
  const precheck = transitionConsentPage(located.value, {
    _tag: "Decide", userId: input.userId, workspaceId: input.workspaceId, csrfHash, answer: input.answer._tag
  }, yield* Clock.currentTimeMillis)
  if (Result.isFailure(precheck)) return yield* precheck.failure
  const answer = input.answer
  const checked = answer._tag === "Allow"
    ? {
      ...yield* connectingRole(located.value.workspaceId, located.value.userId),
      // Ticked platforms are checked against the families connected now (a platform call, also before the command).
      connected: answer.decision.platforms === "all"
        ? []
        : (yield* connectedPlatforms(located.value.workspaceId)).map((family) => family.id)
    }
    : null
  return yield* runCommand({
    load: loadReadFirst(located, consents.find(input.pageId)),
    missing: () => new ConsentPageNotFound(),
    transition: (page, now) => decideTransition(page, input, csrfHash, checked, now),
    writes: {
      _tag: "SaveThen",
      save: consents.save,
      then: (decided) => Effect.map(issueOrDecline(decided), (answer) => ({ answer, events: [] }))
    }
  }).pipe(
    // A race lost every time: the page was decided by the other posts.
    Effect.catchTag("Conflict", () => Effect.fail(new ConsentAlreadyDecided()))
  )
})

/** The redirect back to the app: a code for a grant (inserted in the command's unit of work), or access_denied. */
const issueOrDecline = Effect.fnUntraced(function* (decided: Decided) {
  const secrets = yield* Secrets
  const codes = yield* CodeStore
  const issuer = yield* Issuer
  const { page, grant, now } = decided
  const request = page.request
  if (grant === null) {
    const description = decided.cancelled ? "The person declined access" : "No permission was approved"
    return {
      redirectTo: authorizationResponseUrl(
        request.redirectUri,
        { error: "access_denied", error_description: description, state: request.state },
        issuer.origin
      )
    }
  }

  // RFC 6749 §4.1.2: a one-time code, stored only as its SHA-256, valid 10 minutes, bound to client and redirect URI.
  const code = yield* secrets.generate(Prefix.authorizationCode)
  const record: AuthorizationCode = {
    hash: yield* secrets.hash(code),
    version: 1,
    clientId: request.clientId,
    redirectUri: request.redirectUri,
    redirectUriSent: request.redirectUriSent,
    codeChallenge: request.codeChallenge,
    userId: page.userId,
    workspaceId: page.workspaceId,
    scopes: grant.scopes,
    surface: request.surface,
    platforms: grant.platforms,
    writeMode: grant.writeMode,
    issuedAt: now,
    expiresAt: now + codeLifetimeMs,
    status: "issued",
    failedAttempts: 0,
    connectionId: null
  }
  // Checklist decision 47 (RFC 9700 §2.1.1): a client that reuses its PKCE challenge is logged, not refused.
  if (yield* codes.challengeSeen(record.clientId, record.codeChallenge))
    yield* Effect.logWarning("a client used a PKCE challenge again (RFC 9700 §2.1.1)").pipe(Effect.annotateLogs({ clientId: record.clientId }))
  yield* codes.insert(record)
  return { redirectTo: authorizationResponseUrl(request.redirectUri, { code, state: request.state }, issuer.origin) }
})
