// Token revocation (RFC 7009, spec §POST /oauth/revoke; checklist G, decisions 90, 92, 97): a refresh token of
// the client (live or spent) ends its connection; an access token ends only itself; anything else is still 200 {}.
import { Clock, Effect, Option } from "effect"
import { readParams, required } from "./TokenParams.ts"
import { authenticateClient } from "./authenticateClient.ts"
import type { TokenRequest } from "./handleTokenRequest.ts"
import { runWrite } from "../commands/runCommand.ts"
import { endConnection } from "../connections/endConnection.ts"
import { Prefix, Secrets } from "../ports/Secrets.ts"
import { AccessTokenStore } from "../ports/AccessTokenStore.ts"
import { ConnectionStore } from "../ports/ConnectionStore.ts"

const revoke = Effect.fn("token.revoke")(function* (request: TokenRequest) {
  const params = yield* readParams(request.params)
  const client = yield* authenticateClient(params, request.basic)
  const token = yield* required(params, "token")
  // token_type_hint is only a hint (RFC 7009 §2.1): the prefix says what the token is.
  const hash = yield* (yield* Secrets).hash(token)
  if (token.startsWith(Prefix.refreshToken)) {
    const connection = yield* (yield* ConnectionStore).findByRefreshHash(hash)
    // Another client's token is silently left alone (checklist 94); the app disconnects itself (spec §States).
    if (Option.isSome(connection) && connection.value.clientId === client.clientId)
      yield* endConnection(connection.value.id, "revoked", null, connection.value)
  } else if (token.startsWith(Prefix.accessToken)) {
    const tokens = yield* AccessTokenStore
    const found = yield* tokens.findByHash(hash)
    // An access token has no version and ends once (the store revokes only a live one); no event: the UPDATE alone.
    if (Option.isSome(found) && found.value.clientId === client.clientId)
      yield* runWrite(tokens.revoke(hash, yield* Clock.currentTimeMillis), undefined, [])
  }
  // API keys, garbage and unknown tokens: 200 {} as for any unknown token (RFC 7009 §2.2, decision 97).
  return {} as const
})

/** POST /oauth/revoke: `{}` or the tagged failure the adapter's table answers (invalid_request, invalid_client, 503). */
export const revokeToken = (request: TokenRequest) => revoke(request)

export type RevokeEndpointFailure = Effect.Error<ReturnType<typeof revoke>>
