// The token endpoint's semantics without HTTP (spec §POST /oauth/token, RFC 6749 §3.2, §4.1.3, §5, §6; checklist
// D, E, F): parameters → client authentication → grant → token response. Failures carry reasons only; the HTTP
// adapter's one table answers them (adapters-http/src/oauth/errors.ts).
import { Cause, Clock, Effect, type Exit } from "effect"
import { Observations } from "../ports/Observations.ts"
import { ClientAuthenticationFailed, InvalidRequest, UnknownResource, UnsupportedGrantType } from "./errors.ts"
import { type RawParams, readParams, required } from "./TokenParams.ts"
import { authenticateClient, type BasicCredentials, claimedClientId } from "./authenticateClient.ts"
import { surfaceOfResource } from "./surfaceOfResource.ts"
import type { Client, ClientId } from "../clients/Client.ts"
import { runWrite } from "../commands/runCommand.ts"
import { exchangeCode } from "../codes/exchangeCode.ts"
import { refreshConnection } from "../connections/refreshConnection.ts"
import type { TokenPair } from "../credentials/issueTokenPair.ts"
import { formatScopes } from "../scopes/grant.ts"
import type { Surface } from "../scopes/Scope.ts"
import { Issuer } from "../ports/Issuer.ts"
import { ClientStore } from "../ports/ClientStore.ts"
import { GrantReader } from "../ports/GrantReader.ts"
import { Secrets } from "../ports/Secrets.ts"

/** Spec §Token response; answered with Cache-Control: no-store (RFC 6749 §5.1). */
export interface TokenResponse {
  readonly access_token: string
  readonly token_type: "Bearer"
  readonly expires_in: number
  readonly refresh_token: string
  readonly scope: string
}

export interface TokenRequest {
  readonly params: RawParams
  readonly basic: BasicCredentials
}

// Made once: docs/architecture.md, "Code on the request path".
const resourceParam = Effect.fnUntraced(function* (value: string | null) {
  if (value === null) return null
  const surface = surfaceOfResource(value, (yield* Issuer).origin)
  return surface === null ? yield* new UnknownResource() : surface
})

/**
 * How stale `lastTokenAt` may be before a token notes it again. It only drives forgetting (spec §POST /oauth/register:
 * a registration that never obtained a token, 3 days; §Authentication 4: a metadata document unused for 30 days), so
 * an hour of lateness changes nothing a person could notice, and a client then costs one write an hour instead of one
 * per token, which also kept every concurrent refresh of one client queued on its row (bench/README.md).
 */
export const tokenNoteIntervalMs = 60 * 60 * 1000

/** The note's write when the client's `lastTokenAt` is stale (none when it is fresh: the client was just read). */
const noteIfStale = Effect.fnUntraced(function* (client: Client) {
  const now = yield* Clock.currentTimeMillis
  // The client was just read by its authentication: fresh enough means no statement at all.
  if (client.lastTokenAt !== null && client.lastTokenAt >= now - tokenNoteIntervalMs) return
  yield* runWrite((yield* ClientStore).noteTokenIssued(client.clientId, now, now - tokenNoteIntervalMs), undefined, [])
})

/**
 * Drives forgetting unused registrations (spec §POST /oauth/register, §Authentication 4): best effort, after issuing.
 * A command on the runner whose one write is the note (last save wins, no event: it belongs to no audit log), so it
 * is that UPDATE alone, no transaction.
 */
const noteTokenIssued = (client: Client) =>
  noteIfStale(client).pipe(
    // The tokens are already issued and must reach the client: a failure here is logged, never answered.
    Effect.catch((error) => Effect.logWarning("lastTokenAt not updated").pipe(Effect.annotateLogs({ clientId: client.clientId, error: error._tag })))
  )

/** The client and the refresh grounds a refresh_token request names, read together. */
const prereadRefresh = Effect.fnUntraced(function* (clientId: ClientId, refreshToken: string) {
  const presentedHash = yield* (yield* Secrets).hash(refreshToken)
  const read = yield* (yield* GrantReader).clientAndRefreshGrounds(clientId, presentedHash)
  return { client: { clientId, found: read.client }, grant: { presentedHash, grounds: read.grounds } }
})

/** The client and the authorization code a code exchange names, read together. */
const prereadExchange = Effect.fnUntraced(function* (clientId: ClientId, code: string) {
  const codeHash = yield* (yield* Secrets).hash(code)
  const read = yield* (yield* GrantReader).clientAndCode(clientId, codeHash)
  return { client: { clientId, found: read.client }, grant: { codeHash, code: read.code } }
})

const toResponse = (tokens: TokenPair): TokenResponse => ({
  access_token: tokens.accessToken,
  token_type: "Bearer",
  expires_in: tokens.expiresIn,
  refresh_token: tokens.refreshToken,
  scope: formatScopes(tokens.scopes)
})

// Untraced: handleTokenRequest's body; the grants it calls (codes.exchangeCode, connections.refreshConnection) and
// client authentication keep their spans (a traced Effect.fn costs a span and a stack capture per call).
const grant = Effect.fnUntraced(function* (request: TokenRequest) {
  const params = yield* readParams(request.params)
  const grantType = params.get("grant_type")
  if (grantType === null) return yield* new InvalidRequest({ description: "grant_type is required" })
  if (grantType !== "authorization_code" && grantType !== "refresh_token") return yield* new UnsupportedGrantType()
  // A refresh reads its client and its grant in one read (GrantReader: one statement on SQL), so that it costs that
  // read and its write; the checks and their order are authenticateClient's and refreshConnection's.
  const claimed = claimedClientId(params, request.basic)
  // An exchange reads its client and its code together the same way.
  const presented = params.get(grantType === "refresh_token" ? "refresh_token" : "code")
  const canPreread = claimed !== null && claimed !== "" && presented !== null && presented !== ""
  const preread = canPreread && grantType === "refresh_token" ? yield* prereadRefresh(claimed, presented) : undefined
  const prereadCode = canPreread && grantType === "authorization_code" ? yield* prereadExchange(claimed, presented) : undefined
  const client: Client = yield* authenticateClient(params, request.basic, preread?.client ?? prereadCode?.client)
  const surface: Surface | null = yield* resourceParam(params.get("resource"))
  if (grantType === "authorization_code") {
    const code = yield* required(params, "code")
    // Spec §OAuth errors: "PKCE missing" is invalid_request; a malformed verifier too (RFC 7636 §4.1).
    const codeVerifier = yield* required(params, "code_verifier")
    const { tokens } = yield* exchangeCode({
      code, client, redirectUri: params.get("redirect_uri"), codeVerifier, surface,
      ...(prereadCode === undefined ? {} : { preread: prereadCode.grant })
    }).pipe(
      // The app was removed (or forgotten) after it was authenticated here: answered as a request after the removal is.
      Effect.catchTag("ClientGone", () => Effect.fail(new ClientAuthenticationFailed({ reason: "unknown_client", usedBasic: request.basic !== null })))
    )
    yield* noteTokenIssued(client)
    return { response: toResponse(tokens), retried: false }
  }
  const refreshToken = yield* required(params, "refresh_token")
  const { tokens, retried } = yield* refreshConnection({
    refreshToken, clientId: client.clientId, scope: params.get("scope"), surface,
    ...(preread === undefined ? {} : { preread: preread.grant })
  })
  yield* noteTokenIssued(client)
  return { response: toResponse(tokens), retried }
})

/** POST /oauth/token: a TokenResponse, or the tagged failure the adapter's table answers. */
export const handleTokenRequest = (request: TokenRequest) =>
  grant(request).pipe(
    Effect.onExit((exit) =>
      Effect.map(Effect.service(Observations), (observe) => observe.tokenGrant(grantTypeLabel(request), grantOutcome(exit)))),
    Effect.map((granted) => granted.response)
  )

/** The grant type as a metric label: one of the two served, else `other` (a label never carries client text). */
const grantTypeLabel = (request: TokenRequest): string => {
  const sent = request.params.find(([name]) => name === "grant_type")?.[1]
  return sent === "authorization_code" || sent === "refresh_token" ? sent : "other"
}

/**
 * `issued`; `retry_window` for tokens issued to a spent refresh token presented again within its retry window (a
 * client that lost the answer: its unused successor is withdrawn); or the refusal's tag (with the reason of an
 * invalid refresh token: `RefreshTokenInvalid/reused`).
 */
const grantOutcome = (exit: Exit.Exit<{ readonly retried: boolean }, unknown>): string => {
  if (exit._tag === "Success") return exit.value.retried ? "retry_window" : "issued"
  const failure = exit.cause.reasons.find(Cause.isFailReason)
  if (failure === undefined) return "defect"
  const error = failure.error as { readonly _tag?: unknown; readonly reason?: unknown }
  const tag = typeof error._tag === "string" ? error._tag : "unknown"
  return tag === "RefreshTokenInvalid" && typeof error.reason === "string" ? `${tag}/${error.reason}` : tag
}

/** Every failure the token endpoint can meet: the HTTP adapter's table must name each tag. */
export type TokenEndpointFailure = Effect.Error<ReturnType<typeof grant>>
