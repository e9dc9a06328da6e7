// Issues the access and refresh tokens of a connection (spec §Tokens and codes, §Token response): the access token
// `apo_at_` lives 1 hour, bound to its surface (RFC 8707); the refresh token `apo_rt_`. Only hashes are stored.
import { Clock, Effect } from "effect"
import type { Scope, Surface } from "../scopes/Scope.ts"
import { Prefix, Secrets, type SecretHash } from "../ports/Secrets.ts"
import type { AccessToken } from "./records.ts"
import type { WorkspaceId } from "../workspaces/Workspace.ts"
import type { ConnectionId } from "../connections/Connection.ts"
import type { ClientId } from "../clients/Client.ts"

/** Spec §Tokens and codes: access tokens live 1 hour (expires_in 3600). */
export const accessTokenLifetimeSeconds = 3600

/** A freshly generated secret and the SHA-256 under which it is stored. */
export interface MintedSecret {
  readonly value: string
  readonly hash: SecretHash
}

// Untraced, as planTokenPair: called twice or three times per token request, where a traced Effect.fn (a span and a
// captured stack frame per call, ~15 µs) was a measurable share of the request's CPU (bench/README.md).
export const mintSecret = Effect.fnUntraced(function* (prefix: Prefix) {
  const secrets = yield* Secrets
  const value = yield* secrets.generate(prefix)
  return { value, hash: yield* secrets.hash(value) } satisfies MintedSecret
})

export interface TokenPair {
  readonly accessToken: string
  readonly refreshToken: string
  readonly expiresIn: number
  readonly scopes: ReadonlyArray<Scope>
  readonly surface: Surface
}

export interface IssueTokenPairInput {
  readonly connectionId: ConnectionId
  readonly clientId: ClientId
  readonly workspaceId: WorkspaceId
  /** The refresh generation: withdrawing that pair ends this access token (decision 89). */
  readonly generation: number
  readonly scopes: ReadonlyArray<Scope>
  readonly surface: Surface
  /** The refresh token already recorded as the connection's head (minted before the compare-and-set save). */
  readonly refresh: MintedSecret
}

/** The access token's record (hash only) and the pair to hand to the client, made without writing anything. */
export const planTokenPair = Effect.fnUntraced(function* (input: IssueTokenPairInput) {
  const now = yield* Clock.currentTimeMillis
  const access = yield* mintSecret(Prefix.accessToken)
  const record: AccessToken = {
    hash: access.hash,
    connectionId: input.connectionId,
    generation: input.generation,
    clientId: input.clientId,
    workspaceId: input.workspaceId,
    scopes: input.scopes,
    surface: input.surface,
    issuedAt: now,
    expiresAt: now + accessTokenLifetimeSeconds * 1000,
    revokedAt: null
  }
  const tokens: TokenPair = {
    accessToken: access.value,
    refreshToken: input.refresh.value,
    expiresIn: accessTokenLifetimeSeconds,
    scopes: input.scopes,
    surface: input.surface
  }
  return { record, tokens }
})
