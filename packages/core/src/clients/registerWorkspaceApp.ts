// A workspace's own OAuth app (spec §Resources: OAuth client, "Register an app"): a name, 1 to 10 redirect URIs and
// a type; a Server app gets a secret shown once, a Public app none. Up to 20 per workspace; a workspace admin only
// (workspaceApps.ts). Every redirect URI is checked, and each one refused is named by its place in the list.
import { Clock, Effect, Option, Result } from "effect"
import { cleanName, decodeRedirectUris, maxClientNameLength, maxRedirectUris } from "./ClientMetadata.ts"
import { InvalidClientMetadata, InvalidRedirectUri, NotAllowed, RedirectUrisRejected, TooManyApps } from "./errors.ts"
import { validateRedirectUri } from "./redirectUri.ts"
import { canManageWorkspaceApps } from "./workspaceApps.ts"
import { newRegisteredClient } from "./newRegisteredClient.ts"
import { runCreation } from "../commands/runCommand.ts"
import { Directory } from "../ports/Directory.ts"
import { Issuer } from "../ports/Issuer.ts"
import { ClientStore } from "../ports/ClientStore.ts"
import type { WorkspaceId, UserId } from "../workspaces/Workspace.ts"

export const maxAppsPerWorkspace = 20

export interface RegisterWorkspaceAppInput {
  readonly workspaceId: WorkspaceId
  readonly actorId: UserId
  readonly name: string
  readonly redirectUris: ReadonlyArray<string>
  readonly type: "server" | "public"
}

export const registerWorkspaceApp = Effect.fn("clients.registerWorkspaceApp")(function* (input: RegisterWorkspaceAppInput) {
  const directory = yield* Directory
  const clients = yield* ClientStore
  const issuer = yield* Issuer
  const now = yield* Clock.currentTimeMillis

  const role = yield* directory.role(input.workspaceId, input.actorId)
  if (Option.isNone(role) || !canManageWorkspaceApps(role.value))
    return yield* new NotAllowed({ reason: "only a workspace admin may register an app" })

  const name = cleanName(input.name)
  if (name === null) return yield* new InvalidClientMetadata({ description: "the name is required" })
  if (name.length > maxClientNameLength)
    return yield* new InvalidClientMetadata({ description: `the name must be at most ${maxClientNameLength} characters` })
  if (input.redirectUris.length === 0 || input.redirectUris.length > maxRedirectUris)
    return yield* new InvalidRedirectUri({ description: `an app needs 1 to ${maxRedirectUris} redirect URIs` })
  // Every URI by the registration rules, all at once: the form shows each refused line with its reason.
  const problems = input.redirectUris.flatMap((uri, index) => {
    const checked = validateRedirectUri(uri, issuer.origin)
    return Result.isFailure(checked) ? [{ index, reason: checked.failure.reason }] : []
  })
  if (problems.length > 0) return yield* new RedirectUrisRejected({ problems })
  const redirectUris = yield* Effect.fromResult(
    Result.mapError(decodeRedirectUris(input.redirectUris, issuer.origin), (description) => new InvalidRedirectUri({ description })))

  const { client, clientSecret } = yield* newRegisteredClient({
    kind: "workspace_app",
    name,
    redirectUris,
    authMethod: input.type === "server" ? "client_secret_basic" : "none",
    workspaceId: input.workspaceId,
    now
  })
  // Counted and inserted atomically by the store: registrations racing for the twentieth place cannot make 21. A full
  // workspace fails the unit before its event is appended, so a refused app leaves no entry.
  const insert = Effect.flatMap(clients.insertWorkspaceApp(client, maxAppsPerWorkspace),
    (inserted) => inserted ? Effect.void : Effect.fail(new TooManyApps({ limit: maxAppsPerWorkspace })))
  return yield* runCreation(insert, { client, clientSecret }, [{
    _tag: "WorkspaceAppRegistered", at: now, clientId: client.clientId, workspaceId: input.workspaceId, actorId: input.actorId,
    name, redirectUris: client.redirectUris, authMethod: client.authMethod
  }])
})
