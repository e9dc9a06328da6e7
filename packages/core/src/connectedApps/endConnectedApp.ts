// Ends a Connected apps row at once (spec §What the service does 5; §States: Connection "person disconnects"):
// Disconnect for a connection (disconnectConnection: its refresh token stops working, its access tokens are refused),
// Revoke for an API key (revokeApiKey). Both apply `mayEnd`; this only tells the two apart by the id's prefix and
// answers their refusals as the row's.
import { Effect, Option } from "effect"
import { disconnectConnection } from "../connections/disconnectConnection.ts"
import { ConnectionId } from "../connections/Connection.ts"
import { ApiKeyId } from "../credentials/records.ts"
import { revokeApiKey } from "../credentials/revokeApiKey.ts"
import type { UserId, WorkspaceId } from "../workspaces/Workspace.ts"
import { ConnectedAppNotFound, NotAllowedToEnd } from "./errors.ts"
import { findCredential } from "./findConnectedApp.ts"

export interface EndConnectedAppInput {
  readonly workspaceId: WorkspaceId
  readonly id: string
  readonly actorId: UserId
}

export const endConnectedApp = Effect.fn("connectedApps.endConnectedApp")(function* (input: EndConnectedAppInput) {
  const found = yield* findCredential(input.workspaceId, input.id)
  if (Option.isNone(found)) return yield* new ConnectedAppNotFound()
  if (found.value.connection !== null) {
    return yield* disconnectConnection({ connectionId: ConnectionId.make(input.id), workspaceId: input.workspaceId, actorId: input.actorId }).pipe(
      Effect.map((outcome) => ({ kind: "connection" as const, endedNow: outcome.endedNow })),
      Effect.catchTags({
        ConnectionNotFound: () => Effect.fail(new ConnectedAppNotFound()),
        NotAllowedToManage: () => Effect.fail(new NotAllowedToEnd())
      })
    )
  }
  const wasActive = found.value.key?.revokedAt === null
  return yield* revokeApiKey({ keyId: ApiKeyId.make(input.id), workspaceId: input.workspaceId, actorId: input.actorId }).pipe(
    Effect.map(() => ({ kind: "api_key" as const, endedNow: wasActive })),
    Effect.catchTags({
      ApiKeyNotFound: () => Effect.fail(new ConnectedAppNotFound()),
      ApiKeyNotAllowed: () => Effect.fail(new NotAllowedToEnd())
    })
  )
})
