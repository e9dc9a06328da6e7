// The rules the kit checks, each with the spec row or RFC text it stands for, and the profiles: which rules a server
// promises and how (flags). A rule's prediction is always made by adgate's core transitions (oracle.ts); a flag only
// changes what the core is asked, never copies a rule.
import { maxFailedExchanges, refreshRetryWindowMs } from "@adgate/core"

export const ruleIds = [
  "code.exchange",
  "code.single-use",
  "code.reuse-ends-grant",
  "code.binding",
  "code.failed-attempts",
  "code.race",
  "refresh.rotate",
  "refresh.retry-window",
  "refresh.reuse-ends-grant",
  "refresh.refused-spends-nothing",
  "refresh.scope",
  "refresh.race",
  "revoke.refresh",
  "revoke.access",
  "revoke.unknown",
  "access.after-rotation",
  "access.withdrawn",
  "access.ended-grant",
  "resource.binding"
] as const
export type RuleId = (typeof ruleIds)[number]

export interface Rule {
  readonly id: RuleId
  readonly title: string
  /** adgate's spec row (spec §States and transitions, §Limits) or the RFC text the rule stands for. */
  readonly row: string
}

export const rules: Readonly<Record<RuleId, Rule>> = {
  "code.exchange": { id: "code.exchange", title: "a fresh code with its client, redirect_uri and verifier gives tokens", row: "§States: Authorization code — issued, exchange, matching client, redirect_uri and code_verifier → used, tokens issued (RFC 6749 §4.1.3, RFC 7636 §4.6)" },
  "code.single-use": { id: "code.single-use", title: "a code is exchanged at most once", row: "§States: Authorization code — used, exchanged a second time → refused (invalid_grant) (RFC 6749 §4.1.2)" },
  "code.reuse-ends-grant": { id: "code.reuse-ends-grant", title: "a second exchange ends what the first one issued", row: "§States: Authorization code — used, exchanged a second time → the connection created by the first exchange is ended (RFC 6749 §4.1.2, RFC 9700 §4.5)" },
  "code.binding": { id: "code.binding", title: "a wrong verifier, redirect_uri or client is refused (invalid_grant)", row: "§States: Authorization code — matching client, redirect_uri and code_verifier (RFC 6749 §4.1.3, RFC 7636 §4.6)" },
  "code.failed-attempts": { id: "code.failed-attempts", title: "a failed exchange does not spend the code; the fifth kills it", row: "docs/decisions.md, checklist decision 43: a failed exchange counts, five kill the code" },
  "code.race": { id: "code.race", title: "parallel exchanges of one code agree with some serial order", row: "§Limits — authorization code: one exchange (no find-then-consume race)" },
  "refresh.rotate": { id: "refresh.rotate", title: "a live refresh token gives a new pair and is spent", row: "§States: Connection — active, refresh, token valid → new access and refresh token; old refresh token spent (RFC 9700 §4.14.2)" },
  "refresh.retry-window": { id: "refresh.retry-window", title: "a spent token within the window, successor unused, gets a fresh pair and withdraws the unused one", row: "§States: Connection — spent refresh token presented within 30 s while its successor is unused → that pair is withdrawn, fresh pair issued" },
  "refresh.reuse-ends-grant": { id: "refresh.reuse-ends-grant", title: "any other reuse of a spent token ends the grant", row: "§States: Connection — any other reuse of a spent refresh token → ended, invalid_grant (RFC 9700 §4.14.2)" },
  "refresh.refused-spends-nothing": { id: "refresh.refused-spends-nothing", title: "a refused refresh (widened scope, another resource) spends nothing", row: "§States: Connection — a refused refresh (bad scope, server error) does not spend the refresh token sent (RFC 6749 §6)" },
  "refresh.scope": { id: "refresh.scope", title: "a refresh may keep or narrow the scope, never widen it", row: "RFC 6749 §6: the requested scope MUST NOT include any scope not originally granted; omitted keeps it" },
  "refresh.race": { id: "refresh.race", title: "parallel refreshes with one token agree with some serial order", row: "§Limits — refresh token: single use; 30-second retry window while its successor is unused (no find-then-consume race)" },
  "revoke.refresh": { id: "revoke.refresh", title: "revoking a refresh token ends the grant", row: "§States: Connection — revoke with a refresh token → ended (RFC 7009 §2.1)" },
  "revoke.access": { id: "revoke.access", title: "revoking an access token ends only that token", row: "§States: Connection — revoke with an access token → only that access token ends (RFC 7009 §2.1)" },
  "revoke.unknown": { id: "revoke.unknown", title: "revoking twice, or an unknown token, answers 200", row: "RFC 7009 §2.2: invalid tokens do not cause an error response" },
  "access.after-rotation": { id: "access.after-rotation", title: "access tokens of a live grant work at the resource", row: "§Limits — access token: 1 hour; after a normal refresh the old one lives on (decision 89)" },
  "access.withdrawn": { id: "access.withdrawn", title: "a withdrawn pair's access token stops working", row: "§States: Connection — that pair is withdrawn (decision 89)" },
  "access.ended-grant": { id: "access.ended-grant", title: "no access token of an ended grant works", row: "§States: Connection — ended: shown as disconnected, its tokens stop (RFC 7009 §2.1, RFC 9700 §4.14.2)" },
  "resource.binding": { id: "resource.binding", title: "a resource other than the one authorized is refused (invalid_target)", row: "§Authentication 5 (RFC 8707 §2.2): the resource may repeat, never change, what was authorized" }
}

/** What a server promises, rule by rule. Every flag can be set from the CLI (`--set name=value`). */
export interface Profile {
  readonly name: string
  /** How long a spent refresh token may be retried while its successor is unused; 0 is strict rotation. */
  readonly retryWindowMs: number
  /** Reuse of a spent refresh token (outside the window) ends the grant (RFC 9700 §4.14.2 family revocation). */
  readonly reuseRevokesGrant: boolean
  /** A second exchange of a code ends what the first one issued (RFC 6749 §4.1.2 SHOULD). */
  readonly codeReuseRevokes: boolean
  /** A refused exchange (wrong verifier, redirect_uri or client) leaves the code usable; "either" accepts both. */
  readonly failedExchangeKeepsCode: boolean | "either"
  /** The number of failed exchanges that kills a code; 0: no such rule. */
  readonly failedExchangeLimit: number
  /** The retried pair's unused successor is withdrawn with its access token (adgate decision 89). */
  readonly withdrawRetriedPair: boolean
  /** Revoking an access token ends it (RFC 7009 MAY). */
  readonly revokesAccessTokens: boolean
  /** Revoking an access token also ends its grant (RFC 7009 §2.1: the server MAY revoke the refresh token as well). */
  readonly revokeAccessEndsGrant: boolean | "either"
  /** Ending a grant ends its access tokens (RFC 7009 §2.1 SHOULD, RFC 9700 §4.14.2). */
  readonly endedGrantEndsAccessTokens: boolean
  /** RFC 8707 audience checks: a resource other than the authorized one is invalid_target. */
  readonly audience: boolean
  /** Scope on refresh: narrowing is answered with the narrower scope, widening with invalid_scope. */
  readonly scopeOnRefresh: boolean
}

export const profiles: Readonly<Record<"adgate" | "oauth-2.1", Profile>> = {
  adgate: {
    name: "adgate",
    retryWindowMs: refreshRetryWindowMs,
    reuseRevokesGrant: true,
    codeReuseRevokes: true,
    failedExchangeKeepsCode: true,
    failedExchangeLimit: maxFailedExchanges,
    withdrawRetriedPair: true,
    revokesAccessTokens: true,
    revokeAccessEndsGrant: false,
    endedGrantEndsAccessTokens: true,
    audience: true,
    scopeOnRefresh: true
  },
  "oauth-2.1": {
    name: "oauth-2.1",
    retryWindowMs: 0,
    reuseRevokesGrant: true,
    codeReuseRevokes: true,
    failedExchangeKeepsCode: "either",
    failedExchangeLimit: 0,
    withdrawRetriedPair: false,
    revokesAccessTokens: true,
    revokeAccessEndsGrant: "either",
    endedGrantEndsAccessTokens: true,
    audience: false,
    scopeOnRefresh: true
  }
}

/** Applies `name=value` overrides to a profile; an unknown name or a value of the wrong kind is an error. */
export const withOverrides = (profile: Profile, overrides: ReadonlyArray<string>): Profile => {
  const next: Record<string, unknown> = { ...profile }
  for (const override of overrides) {
    const at = override.indexOf("=")
    const name = at < 0 ? override : override.slice(0, at)
    const raw = at < 0 ? "" : override.slice(at + 1)
    if (!Object.hasOwn(profile, name) || name === "name") throw new Error(`--set ${override}: no profile flag "${name}" (flags: ${Object.keys(profile).filter((k) => k !== "name").join(", ")})`)
    const current = (profile as unknown as Record<string, unknown>)[name]
    if (typeof current === "number") {
      const n = Number(raw)
      if (raw === "" || !Number.isInteger(n) || n < 0) throw new Error(`--set ${override}: ${name} takes a whole number`)
      next[name] = n
    } else if (raw === "true" || raw === "false") next[name] = raw === "true"
    else if (raw === "either" && (name === "failedExchangeKeepsCode" || name === "revokeAccessEndsGrant")) next[name] = "either"
    else throw new Error(`--set ${override}: ${name} takes true or false${name === "failedExchangeKeepsCode" || name === "revokeAccessEndsGrant" ? " or either" : ""}`)
  }
  return next as unknown as Profile
}

/** The rules a profile does not promise at all: reported "not applicable". */
export const rulesOff = (profile: Profile): ReadonlySet<RuleId> => {
  const off = new Set<RuleId>()
  if (profile.retryWindowMs === 0) off.add("refresh.retry-window")
  if (!profile.withdrawRetriedPair || profile.retryWindowMs === 0) off.add("access.withdrawn")
  if (profile.failedExchangeLimit === 0) off.add("code.failed-attempts")
  if (!profile.codeReuseRevokes) off.add("code.reuse-ends-grant")
  if (!profile.audience) off.add("resource.binding")
  if (!profile.scopeOnRefresh) off.add("refresh.scope")
  return off
}
