// The oracle: what a server should answer, predicted by adgate's own core transitions (transitionCode,
// transitionConnection, accessTokenWorks, the OAuth error table) over the tokens the server really issued. Nothing of
// a rule is written here: a profile flag only changes what the core is asked (a shorter retry window is the spent
// time moved back by the difference, no failed-attempt limit is a count the core never sees reach it).
//
// The oracle keeps a set of candidate worlds, not one: parallel requests may have been served in any order, and a
// profile may leave a rule open ("either"). Each step keeps the worlds in which every answer is the predicted one; no
// world left is a deviation.
import { createHash } from "node:crypto"
import {
  accessTokenWorks, type AuthorizationCode, ClientId, codeLifetimeMs, type Connection, connectionLifetimeMs, ConnectionId,
  maxFailedExchanges, parseScopes, refreshRetryWindowMs, type Scope, SecretHash, transitionCode, transitionConnection,
  UserId, WorkspaceId, RefreshTokenInvalid, type EndReason
} from "@adgate/core"
import { type OAuthEndpointFailure, type OAuthJsonError, oauthErrorTable } from "@adgate/adapters-http"
import type { Profile, RuleId } from "./rules.ts"

/** The surface label the oracle gives the resource the kit authorizes for, and the one it gives any other resource. */
const ownSurface = "mcp" as const
const foreignSurface = "rest" as const

export type Request =
  | { readonly _tag: "Exchange"; readonly code: string; readonly clientId: string; readonly redirectUri: string; readonly verifier: string; readonly foreignResource: boolean }
  | { readonly _tag: "Refresh"; readonly token: string; readonly clientId: string; readonly scope: string | null; readonly foreignResource: boolean }
  | { readonly _tag: "Revoke"; readonly token: string; readonly clientId: string }
  | { readonly _tag: "Probe"; readonly token: string }

/** An answer as the driver read it off the wire. */
export type Answer =
  | { readonly _tag: "Tokens"; readonly status: number; readonly access: string; readonly refresh: string | null; readonly scope: string | null; readonly expiresIn: number | null }
  | { readonly _tag: "Error"; readonly status: number; readonly error: string }
  | { readonly _tag: "Status"; readonly status: number }

export type Expect =
  | { readonly _tag: "Tokens"; readonly scopes: ReadonlyArray<Scope> | null; readonly refreshFrom: string | null }
  | { readonly _tag: "Error"; readonly error: string }
  | { readonly _tag: "Status"; readonly status: number }

interface AccessEntry {
  readonly connectionId: ConnectionId
  readonly generation: number
  readonly expiresAt: number
  readonly revokedAt: number | null
}

export interface World {
  readonly codes: ReadonlyMap<string, AuthorizationCode>
  readonly connections: ReadonlyMap<ConnectionId, Connection>
  /** Every refresh token ever issued, with its grant (a store finds spent and withdrawn ones too). */
  readonly refreshOwner: ReadonlyMap<string, ConnectionId>
  readonly access: ReadonlyMap<string, AccessEntry>
  /** Refresh tokens a refusal left unspent: the next rotation with one of them shows that nothing was spent. */
  readonly refused: ReadonlySet<string>
  readonly nextId: number
}

export const emptyWorld: World = { codes: new Map(), connections: new Map(), refreshOwner: new Map(), access: new Map(), refused: new Set(), nextId: 1 }

const refusedWith = (world: World, token: string): World => ({ ...world, refused: new Set(world.refused).add(token) })

/** BASE64URL(SHA-256(value)): how the core keys codes and tokens, and RFC 7636's S256. */
export const sha256 = (value: string): string => createHash("sha256").update(value).digest("base64url")
const hashOf = (value: string): SecretHash => SecretHash.make(sha256(value))

const person = { userId: UserId.make("conformance-person"), workspaceId: WorkspaceId.make("conformance-workspace") }

/** A code the consent driver obtained: the issued code as the core records it. */
export const authorized = (world: World, code: string, clientId: string, redirectUri: string, verifier: string, now: number): World => {
  const record: AuthorizationCode = {
    hash: hashOf(code), version: 1, clientId: ClientId.make(clientId), redirectUri, redirectUriSent: true,
    codeChallenge: sha256(verifier), ...person, scopes: [], surface: ownSurface, platforms: "all", writeMode: "wait",
    issuedAt: now, expiresAt: now + codeLifetimeMs, status: "issued", failedAttempts: 0, connectionId: null
  }
  return { ...world, codes: new Map(world.codes).set(code, record) }
}

/** One way a request may be answered, and what the world is after it. */
interface Alternative {
  readonly expect: Expect
  readonly rules: ReadonlyArray<RuleId>
  readonly commit: (answer: Answer, now: number) => World
}

const endReasonRule: Readonly<Record<EndReason, RuleId>> = {
  code_reused: "code.reuse-ends-grant",
  refresh_reused: "refresh.reuse-ends-grant",
  revoked: "revoke.refresh",
  disconnected: "access.ended-grant",
  app_removed: "access.ended-grant",
  role_lost: "access.ended-grant",
  expired: "access.ended-grant"
}

/** The `error` code adgate's one OAuth error table answers for a core refusal. */
const errorOf = (error: OAuthEndpointFailure): string =>
  (oauthErrorTable[error._tag] as (failure: OAuthEndpointFailure) => OAuthJsonError)(error).error
const same = (world: World) => () => world

const withConnection = (world: World, connection: Connection): World =>
  ({ ...world, connections: new Map(world.connections).set(connection.id, connection) })

/** Ends a grant as the core's End row does (an ended one stays as it is). */
const endGrant = (world: World, id: ConnectionId, reason: EndReason, now: number): World => {
  const connection = world.connections.get(id)
  if (connection === undefined) return world
  const decision = transitionConnection(connection, { _tag: "End", reason }, now)
  return decision._tag === "Ended" ? withConnection(world, decision.next) : world
}

const predictExchange = (world: World, request: Extract<Request, { _tag: "Exchange" }>, profile: Profile, now: number): ReadonlyArray<Alternative> => {
  const code = world.codes.get(request.code)
  if (code === undefined) return [{ expect: { _tag: "Error", error: "invalid_grant" }, rules: ["code.binding"], commit: same(world) }]
  // No failed-attempt rule: the core never sees the count; another limit: the count the core sees is moved so that
  // its own limit falls where the profile's does.
  const seen = profile.failedExchangeLimit === 0 ? 0 : code.failedAttempts + (maxFailedExchanges - profile.failedExchangeLimit)
  const view: AuthorizationCode = { ...code, failedAttempts: seen }
  const connectionId = ConnectionId.make(`con_oracle_${world.nextId}`)
  const decision = transitionCode(view, {
    _tag: "Exchange", clientId: ClientId.make(request.clientId), redirectUri: request.redirectUri,
    verifierChallenge: sha256(request.verifier), surface: request.foreignResource ? foreignSurface : ownSurface, connectionId
  }, now)
  const restore = (next: AuthorizationCode): AuthorizationCode => ({ ...next, failedAttempts: code.failedAttempts + (next.failedAttempts - seen) })
  if (decision._tag === "Exchanged") {
    const rules: Array<RuleId> = ["code.exchange"]
    if (code.failedAttempts > 0) rules.push("code.failed-attempts")
    return [{
      expect: { _tag: "Tokens", scopes: null, refreshFrom: null },
      rules,
      commit: (answer, at) => {
        if (answer._tag !== "Tokens") return world
        const scopes = answer.scope === null ? [] : parseScopes(answer.scope)
        const connection: Connection = {
          id: connectionId, version: 1, clientId: code.clientId, workspaceId: code.workspaceId, approverId: code.userId,
          scopes, surface: code.surface, platforms: code.platforms, writeMode: code.writeMode, status: "active", endedReason: null,
          createdAt: at, endedAt: null, expiresAt: code.issuedAt + connectionLifetimeMs, roleConfirmedAt: code.issuedAt,
          refresh: { hash: hashOf(answer.refresh ?? `none:${connectionId}`), generation: 1, issuedAt: at },
          spent: null, withdrawn: [], lastUsedAt: at
        }
        const refreshOwner = new Map(world.refreshOwner)
        if (answer.refresh !== null) refreshOwner.set(answer.refresh, connectionId)
        return {
          ...world,
          codes: new Map(world.codes).set(request.code, restore(decision.next)),
          connections: new Map(world.connections).set(connectionId, connection),
          refreshOwner,
          access: new Map(world.access).set(answer.access, {
            connectionId, generation: 1, expiresAt: at + (answer.expiresIn ?? 3600) * 1000, revokedAt: null
          }),
          nextId: world.nextId + 1
        }
      }
    }]
  }
  const error = decision.error
  const expect: Expect = { _tag: "Error", error: errorOf(error) }
  switch (error._tag) {
    case "CodeReused":
      return [{
        expect, rules: ["code.single-use"],
        commit: (_answer, at) => profile.codeReuseRevokes && error.connectionId !== null ? endGrant(world, error.connectionId, "code_reused", at) : world
      }]
    case "CodeExhausted":
      return [{ expect, rules: ["code.failed-attempts"], commit: same(world) }]
    case "ResourceMismatch":
      return [{ expect, rules: ["resource.binding"], commit: same(world) }]
    case "CodeExpired":
      return [{ expect, rules: ["code.exchange"], commit: same(world) }]
    case "CodeMismatch":
    case "PkceMismatch": {
      const kept = decision.next === null ? world : { ...world, codes: new Map(world.codes).set(request.code, restore(decision.next)) }
      // A server that spends a code on a failed exchange: the code is used, with no grant to end.
      const spent = { ...world, codes: new Map(world.codes).set(request.code, { ...code, status: "used" as const, version: code.version + 1 }) }
      const keeps = profile.failedExchangeKeepsCode
      const rules: ReadonlyArray<RuleId> = keeps === true ? ["code.binding", "code.failed-attempts"] : ["code.binding"]
      return [
        ...(keeps === false ? [] : [{ expect, rules, commit: same(kept) }]),
        ...(keeps === true ? [] : [{ expect, rules, commit: same(spent) }])
      ]
    }
  }
}

/** The connection as the core is shown it under the profile's retry window. */
const windowShift = (profile: Profile) => refreshRetryWindowMs - profile.retryWindowMs

const predictRefresh = (world: World, request: Extract<Request, { _tag: "Refresh" }>, profile: Profile, now: number): ReadonlyArray<Alternative> => {
  const id = world.refreshOwner.get(request.token)
  const connection = id === undefined ? undefined : world.connections.get(id)
  if (connection === undefined)
    return [{ expect: { _tag: "Error", error: errorOf(new RefreshTokenInvalid({ reason: "not_found" })) }, rules: ["refresh.reuse-ends-grant"], commit: same(world) }]
  const shift = windowShift(profile)
  const view: Connection = connection.spent === null ? connection : { ...connection, spent: { ...connection.spent, spentAt: connection.spent.spentAt - shift } }
  const placeholder = hashOf(`next:${connection.id}:${connection.version}`)
  const decision = transitionConnection(view, {
    _tag: "Refresh", presentedHash: hashOf(request.token), clientId: ClientId.make(request.clientId),
    role: { _tag: "Confirmed", role: "admin" }, scope: request.scope, surface: request.foreignResource ? foreignSurface : null,
    nextRefreshHash: placeholder
  }, now)
  switch (decision._tag) {
    case "Rotated": {
      const retry = decision.withdrew !== null
      const rules: Array<RuleId> = [retry ? "refresh.retry-window" : "refresh.rotate"]
      if (!retry && world.refused.has(request.token)) rules.unshift("refresh.refused-spends-nothing")
      if (request.scope !== null && profile.scopeOnRefresh) rules.push("refresh.scope")
      return [{
        expect: { _tag: "Tokens", scopes: request.scope !== null && profile.scopeOnRefresh ? decision.issue.scopes : null, refreshFrom: request.token },
        rules,
        commit: (answer, at) => {
          if (answer._tag !== "Tokens") return world
          const next: Connection = {
            ...decision.next,
            refresh: { ...decision.next.refresh, hash: hashOf(answer.refresh ?? `none:${connection.id}:${at}`) },
            spent: decision.next.spent === view.spent ? connection.spent : decision.next.spent,
            withdrawn: profile.withdrawRetriedPair ? decision.next.withdrawn : connection.withdrawn
          }
          const refreshOwner = new Map(world.refreshOwner)
          if (answer.refresh !== null) refreshOwner.set(answer.refresh, connection.id)
          return {
            ...withConnection(world, next),
            refreshOwner,
            access: new Map(world.access).set(answer.access, {
              connectionId: connection.id, generation: decision.issue.generation, expiresAt: at + (answer.expiresIn ?? 3600) * 1000, revokedAt: null
            })
          }
        }
      }]
    }
    case "Ended": {
      const rule = decision.reason === "refresh_reused" ? "refresh.reuse-ends-grant" : endReasonRule[decision.reason]
      const expect: Expect = { _tag: "Error", error: errorOf(decision.error ?? new RefreshTokenInvalid({ reason: "connection_ended" })) }
      return [{ expect, rules: [rule], commit: () => (decision.reason === "refresh_reused" && !profile.reuseRevokesGrant ? world : withConnection(world, decision.next)) }]
    }
    case "Refused": {
      const error = decision.error
      const rules: ReadonlyArray<RuleId> = error._tag === "ScopeNotGranted" ? ["refresh.refused-spends-nothing", "refresh.scope"]
        : error._tag === "SurfaceNotGranted" ? ["resource.binding"]
        : connection.status === "ended" && connection.endedReason !== null ? [endReasonRule[connection.endedReason]]
        : ["refresh.rotate"]
      return [{ expect: { _tag: "Error", error: errorOf(error) }, rules, commit: same(connection.status === "active" ? refusedWith(world, request.token) : world) }]
    }
    case "Unchanged":
      return [{ expect: { _tag: "Error", error: "invalid_grant" }, rules: ["refresh.rotate"], commit: same(world) }]
  }
}

const predictRevoke = (world: World, request: Extract<Request, { _tag: "Revoke" }>, profile: Profile): ReadonlyArray<Alternative> => {
  // RFC 7009 §2.2: 200 whatever the token; what it ends is seen by later requests.
  const expect: Expect = { _tag: "Status", status: 200 }
  const owner = world.refreshOwner.get(request.token)
  if (owner !== undefined) {
    const connection = world.connections.get(owner)
    return [{
      expect, rules: ["revoke.refresh"],
      commit: (_answer, at) => connection !== undefined && connection.clientId === request.clientId ? endGrant(world, owner, "revoked", at) : world
    }]
  }
  const access = world.access.get(request.token)
  if (access !== undefined) {
    const alone = (at: number): World => !profile.revokesAccessTokens || access.revokedAt !== null ? world
      : { ...world, access: new Map(world.access).set(request.token, { ...access, revokedAt: at }) }
    const ends = profile.revokeAccessEndsGrant
    return [
      ...(ends === true ? [] : [{ expect, rules: ["revoke.access"] as ReadonlyArray<RuleId>, commit: (_answer: Answer, at: number) => alone(at) }]),
      ...(ends === false ? [] : [{
        expect, rules: ["revoke.access"] as ReadonlyArray<RuleId>,
        commit: (_answer: Answer, at: number) => endGrant(alone(at), access.connectionId, "revoked", at)
      }])
    ]
  }
  return [{ expect, rules: ["revoke.unknown"], commit: same(world) }]
}

const predictProbe = (world: World, request: Extract<Request, { _tag: "Probe" }>, profile: Profile, now: number): ReadonlyArray<Alternative> => {
  const token = world.access.get(request.token)
  if (token === undefined) return [{ expect: { _tag: "Status", status: 401 }, rules: ["access.after-rotation"], commit: same(world) }]
  const connection = world.connections.get(token.connectionId) ?? null
  const seen = connection === null ? null : {
    ...connection,
    status: profile.endedGrantEndsAccessTokens ? connection.status : "active" as const,
    withdrawn: profile.withdrawRetriedPair ? connection.withdrawn : []
  }
  const works = accessTokenWorks({ ...token, surface: ownSurface }, seen, ownSurface, now)
  const rules: Array<RuleId> = []
  if (works) rules.push("access.after-rotation")
  else if (token.revokedAt !== null) rules.push("revoke.access")
  else if (connection !== null && connection.status === "ended") {
    rules.push("access.ended-grant")
    if (connection.endedReason !== null && endReasonRule[connection.endedReason] !== "access.ended-grant") rules.push(endReasonRule[connection.endedReason])
  } else if (connection !== null && connection.withdrawn.some((w) => w.generation === token.generation)) rules.push("access.withdrawn")
  else rules.push("access.after-rotation")
  return [{ expect: { _tag: "Status", status: works ? 200 : 401 }, rules, commit: same(world) }]
}

/**
 * A request naming a resource outside the grant may be refused for that before anything else is looked at (RFC 8707
 * §2 leaves the order of checks open): invalid_target, nothing changed, is always one of the answers.
 */
const resourceFirst = (world: World, request: Request, alternatives: ReadonlyArray<Alternative>, profile: Profile): ReadonlyArray<Alternative> =>
  (request._tag === "Exchange" || request._tag === "Refresh") && request.foreignResource && profile.audience &&
    !alternatives.some((a) => a.expect._tag === "Error" && a.expect.error === "invalid_target")
    ? [...alternatives, {
      expect: { _tag: "Error", error: "invalid_target" }, rules: ["resource.binding"],
      commit: same(request._tag === "Refresh" ? refusedWith(world, request.token) : world)
    }]
    : alternatives

const predict = (world: World, request: Request, profile: Profile, now: number): ReadonlyArray<Alternative> => {
  switch (request._tag) {
    case "Exchange": return resourceFirst(world, request, predictExchange(world, request, profile, now), profile)
    case "Refresh": return resourceFirst(world, request, predictRefresh(world, request, profile, now), profile)
    case "Revoke": return predictRevoke(world, request, profile)
    case "Probe": return predictProbe(world, request, profile, now)
  }
}

/** Why `answer` is not what `expect` says, or null when it is. */
export const mismatch = (expect: Expect, answer: Answer): string | null => {
  switch (expect._tag) {
    case "Tokens": {
      if (answer._tag !== "Tokens") return `expected tokens, got ${describeAnswer(answer)}`
      if (answer.refresh === null) return "expected a refresh token in the answer, got none"
      if (expect.refreshFrom !== null && answer.refresh === expect.refreshFrom) return "the refresh token was not rotated (the same token came back)"
      if (expect.scopes !== null && answer.scope !== null) {
        const got = [...parseScopes(answer.scope)].sort().join(" ")
        const want = [...expect.scopes].sort().join(" ")
        if (got !== want) return `expected scope "${want}", got "${answer.scope}"`
      }
      return null
    }
    case "Error":
      return answer._tag === "Error" && answer.error === expect.error && answer.status >= 400 && answer.status < 500
        ? null : `expected ${expect.error}, got ${describeAnswer(answer)}`
    case "Status":
      return answer._tag !== "Tokens" && answer.status === expect.status && (answer._tag !== "Error" || expect.status >= 400)
        ? null : `expected HTTP ${expect.status}, got ${describeAnswer(answer)}`
  }
}

export const describeAnswer = (answer: Answer): string =>
  answer._tag === "Tokens" ? `${answer.status} tokens${answer.refresh === null ? " (no refresh token)" : ""}${answer.scope === null ? "" : ` scope "${answer.scope}"`}`
    : answer._tag === "Error" ? `${answer.status} ${answer.error}` : `HTTP ${answer.status}`

export const describeExpect = (expect: Expect): string =>
  expect._tag === "Tokens" ? `tokens${expect.scopes === null ? "" : ` with scope "${expect.scopes.join(" ")}"`}`
    : expect._tag === "Error" ? expect.error : `HTTP ${expect.status}`

export interface StepResult {
  /** The worlds in which every answer was the predicted one. */
  readonly worlds: ReadonlyArray<World>
  /** The rules the surviving predictions exercised. */
  readonly exercised: ReadonlySet<RuleId>
  /** Set when no world is left: what was predicted (in request order, the first world, the order sent) and why not. */
  readonly deviation: null | { readonly rules: ReadonlyArray<RuleId>; readonly expected: ReadonlyArray<string>; readonly reasons: ReadonlyArray<string> }
}

const permutations = (n: number): ReadonlyArray<ReadonlyArray<number>> => {
  if (n <= 1) return [Array.from({ length: n }, (_, i) => i)]
  const out: Array<Array<number>> = []
  for (const rest of permutations(n - 1)) for (let at = 0; at <= rest.length; at++) out.push([...rest.slice(0, at), n - 1, ...rest.slice(at)])
  return out
}

/** Enough to keep every order of a handful of parallel requests over a few open choices. */
const maxWorlds = 512

/**
 * One step: `requests` were in flight together (one request: a sequential step) and `answers` came back in the same
 * order. Each world and each order the server could have served them in is tried.
 */
export const step = (
  worlds: ReadonlyArray<World>, requests: ReadonlyArray<Request>, answers: ReadonlyArray<Answer>, profile: Profile, now: number,
  race: RuleId | null = null
): StepResult => {
  const survivors = new Map<string, World>()
  const exercised = new Set<RuleId>()
  for (const world of worlds) {
    for (const order of permutations(requests.length)) {
      let branches: ReadonlyArray<{ readonly world: World; readonly rules: ReadonlyArray<RuleId> }> = [{ world, rules: [] }]
      for (const i of order) {
        const next: Array<{ world: World; rules: ReadonlyArray<RuleId> }> = []
        for (const branch of branches)
          for (const alternative of predict(branch.world, requests[i]!, profile, now))
            if (mismatch(alternative.expect, answers[i]!) === null)
              next.push({ world: alternative.commit(answers[i]!, now), rules: [...branch.rules, ...alternative.rules] })
        branches = next
        if (branches.length === 0) break
      }
      for (const branch of branches) {
        for (const rule of branch.rules) exercised.add(rule)
        if (race !== null) exercised.add(race)
        const key = fingerprint(branch.world)
        if (!survivors.has(key) && survivors.size < maxWorlds) survivors.set(key, branch.world)
      }
    }
  }
  if (survivors.size > 0) return { worlds: [...survivors.values()], exercised, deviation: null }
  // No world explains the answers: report the prediction of the first world in the order sent.
  let world = worlds[0] ?? emptyWorld
  const expected: Array<string> = []
  const reasons: Array<string> = []
  let rules: ReadonlyArray<RuleId> = []
  requests.forEach((request, i) => {
    const alternatives = predict(world, request, profile, now)
    const first = alternatives[0]!
    expected.push(alternatives.map((a) => describeExpect(a.expect)).join(" or "))
    const matching = alternatives.find((a) => mismatch(a.expect, answers[i]!) === null)
    if (matching === undefined) {
      if (rules.length === 0) rules = race === null ? first.rules : [race, ...first.rules]
      reasons.push(mismatch(first.expect, answers[i]!) ?? "")
      world = first.commit(answers[i]!, now)
    } else {
      reasons.push("as predicted")
      world = matching.commit(answers[i]!, now)
    }
  })
  return { worlds: [], exercised, deviation: { rules, expected, reasons } }
}

const fingerprint = (world: World): string => JSON.stringify([
  [...world.codes.entries()], [...world.connections.entries()], [...world.refreshOwner.entries()], [...world.access.entries()],
  [...world.refused], world.nextId
])

/** When the token was spent, in each world where it is a grant's spent token (for the driver's window guard). */
export const spentAt = (worlds: ReadonlyArray<World>, token: string): ReadonlyArray<number> => {
  const hash = hashOf(token)
  const out: Array<number> = []
  for (const world of worlds) {
    const id = world.refreshOwner.get(token)
    const connection = id === undefined ? undefined : world.connections.get(id)
    if (connection?.spent !== null && connection?.spent !== undefined && connection.spent.hash === hash) out.push(connection.spent.spentAt)
  }
  return out
}
