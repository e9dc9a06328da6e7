// Allow access or Cancel on the consent page (spec §GET /oauth/authorize "After the person decides", §States:
// Consent page, §Authentication 9; RFC 6749 §4.1.2, RFC 9207). The page is saved with compare-and-set before a
// code is issued, so two concurrent posts of one page issue at most one code; the page, the code (or the declined
// audit entry) are one transaction, so a failure leaves the page open for a retry (docs/decisions.md §Atomicity).
import { Clock, Effect, Option, Result } from "effect"
import { authorizationResponseUrl } from "./authorizationResponseUrl.ts"
import { connectedPlatforms } from "./connectedPlatforms.ts"
import type { ConsentDecision, ConsentPage } from "./ConsentPage.ts"
import { ConsentAlreadyDecided, ConsentPageNotFound, InvalidConsentDecision } from "./errors.ts"
import { connectingRole } from "./openConsentPage.ts"
import { transitionConsentPage } from "./transitionConsentPage.ts"
import { recordAudit } from "../audit/recordAudit.ts"
import type { AuthorizationCode } from "../codes/AuthorizationCode.ts"
import { codeLifetimeMs } from "../codes/transitionCode.ts"
import { Issuer } from "../ports/Issuer.ts"
import { Prefix, Secrets } from "../ports/Secrets.ts"
import { CodeStore, ConsentStore } from "../ports/Stores.ts"
import { Transactor } from "../ports/Transactor.ts"
import { canGrant, formatScopes, isToolScope, makesChanges, parseScopes } from "../scopes/grant.ts"
import type { Plan, Role } from "../workspaces/Workspace.ts"

const maxPlatformNameLength = 100

export type ConsentAnswer = { readonly _tag: "Allow"; readonly decision: ConsentDecision } | { readonly _tag: "Cancel" }

export interface DecideConsentInput {
  readonly pageId: string
  readonly csrfToken: string
  /** The signed-in person and chosen workspace at the moment of the post. */
  readonly userId: string
  readonly workspaceId: string
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

export const decideConsent = Effect.fn("authorize.decideConsent")(function* (input: DecideConsentInput) {
  const transactor = yield* Transactor
  // Ticked platforms are checked against the families connected now; read before the transaction (a platform call).
  const connected = input.answer._tag === "Allow" && input.answer.decision.platforms !== "all"
    ? (yield* connectedPlatforms(input.workspaceId)).map((family) => family.id)
    : []
  return yield* transactor.atomically(decideAndIssue(input, connected))
})

const decideAndIssue = Effect.fnUntraced(function* (input: DecideConsentInput, connected: ReadonlyArray<string>) {
  const secrets = yield* Secrets
  const consents = yield* ConsentStore
  const codes = yield* CodeStore
  const issuer = yield* Issuer
  const csrfHash = yield* secrets.hash(input.csrfToken)

  const decided = yield* Effect.gen(function* () {
    const found = yield* consents.find(input.pageId)
    if (Option.isNone(found)) return yield* new ConsentPageNotFound()
    const page = found.value
    const now = yield* Clock.currentTimeMillis
    const event = { _tag: "Decide" as const, userId: input.userId, workspaceId: input.workspaceId, csrfHash }
    // CSRF, session, single use and expiry first: a forged or stale post learns nothing about the choice.
    yield* Effect.fromResult(transitionConsentPage(page, { ...event, answer: input.answer._tag }, now))
    let grant: ConsentDecision | null = null
    if (input.answer._tag === "Allow") {
      const { role, plan } = yield* connectingRole(page.workspaceId, page.userId)
      const checked = yield* Effect.fromResult(checkConsentDecision(page, input.answer.decision, role, plan, connected))
      // Spec: approving no permission is answered access_denied.
      grant = checked.scopes.length === 0 ? null : checked
    }
    const { next } = yield* Effect.fromResult(transitionConsentPage(page, { ...event, answer: grant === null ? "Cancel" : "Allow" }, now))
    yield* consents.save(next)
    return { page: next, grant, now, cancelled: input.answer._tag === "Cancel" }
  }).pipe(
    // A lost race is not an answer: reload and decide again; the loser then finds the page decided.
    Effect.retry({ while: (e) => e._tag === "Conflict", times: 3 }),
    Effect.catchTag("Conflict", () => Effect.fail(new ConsentAlreadyDecided()))
  )

  const { page, grant, now } = decided
  const request = page.request
  if (grant === null) {
    const description = decided.cancelled ? "The person declined access" : "No permission was approved"
    yield* recordAudit({
      workspaceId: page.workspaceId,
      actorId: page.userId,
      action: "connection.declined",
      clientId: request.clientId,
      connectionId: null,
      detail: { scopesAsked: formatScopes(request.scopes), surface: request.surface, reason: decided.cancelled ? "cancelled" : "no_permission_approved" }
    })
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
