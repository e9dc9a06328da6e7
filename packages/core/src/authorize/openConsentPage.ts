// Opening the consent page for a validated authorization request (spec §GET /oauth/authorize, §States: Consent
// page): who may connect, what the page offers, and a page record with a CSRF token of which only the hash is kept.
import { Clock, Effect, Option } from "effect"
import { type AuthorizationRequest, type ConsentPage, ConsentPageId } from "./ConsentPage.ts"
import { connectedPlatforms } from "./connectedPlatforms.ts"
import { consentOptions } from "./consentOptions.ts"
import { NotAllowedToConnect } from "./errors.ts"
import { consentPageLifetimeMs } from "./transitionConsentPage.ts"
import type { Client } from "../clients/Client.ts"
import { runCreation } from "../commands/runCommand.ts"
import { canConnect } from "../scopes/grant.ts"
import { Directory } from "../ports/Directory.ts"
import { Prefix, Secrets } from "../ports/Secrets.ts"
import { ConsentStore } from "../ports/ConsentStore.ts"
import type { Plan, Role, WorkspaceId, UserId } from "../workspaces/Workspace.ts"

export interface OpenConsentPageInput {
  readonly request: AuthorizationRequest
  readonly client: Client
  readonly userId: UserId
  readonly workspaceId: WorkspaceId
}

/** The person's role and the workspace's plan, or why the person may not connect an app to it. */
export const connectingRole = Effect.fn("authorize.connectingRole")(function* (workspaceId: WorkspaceId, userId: UserId) {
  const directory = yield* Directory
  const workspace = yield* directory.workspace(workspaceId)
  if (Option.isNone(workspace)) return yield* new NotAllowedToConnect({ reason: "unknown_workspace" })
  const role = yield* directory.role(workspaceId, userId)
  if (Option.isNone(role)) return yield* new NotAllowedToConnect({ reason: "not_a_member" })
  // Spec §Resources: Scopes: a member who is neither admin nor editor cannot connect an app.
  if (!canConnect(role.value)) return yield* new NotAllowedToConnect({ reason: "role_cannot_connect" })
  return { role: role.value, plan: workspace.value.plan } satisfies { role: Role; plan: Plan }
})

export const openConsentPage = Effect.fn("authorize.openConsentPage")(function* (input: OpenConsentPageInput) {
  const secrets = yield* Secrets
  const consents = yield* ConsentStore
  // Spec §Resources: OAuth client: only members of the registering workspace can authorize a workspace app.
  if (input.client.kind === "workspace_app" && input.client.workspaceId !== input.workspaceId)
    return yield* new NotAllowedToConnect({ reason: "app_of_another_workspace" })
  const { role, plan } = yield* connectingRole(input.workspaceId, input.userId)
  const now = yield* Clock.currentTimeMillis
  const csrfToken = yield* secrets.generate(Prefix.csrf)
  const page: ConsentPage = {
    id: ConsentPageId.make(yield* secrets.generate(Prefix.consentPage)),
    version: 1,
    request: input.request,
    userId: input.userId,
    workspaceId: input.workspaceId,
    csrfHash: yield* secrets.hash(csrfToken),
    openedAt: now,
    expiresAt: now + consentPageLifetimeMs,
    status: "open"
  }
  // A creation without an event (opening a page is no audit entry): the insert alone, no extra round trip.
  yield* runCreation(consents.insert(page), page, [])
  return { page, csrfToken, options: yield* consentOptionsWithPlatforms(input.request, role, plan, input.client, input.workspaceId) }
})

/**
 * The page's options with the workspace's connected platforms, read only when platforms are shown. A platform that
 * cannot be listed does not keep the person from connecting: the page then offers "all" only.
 */
export const consentOptionsWithPlatforms = Effect.fnUntraced(
  function* (request: AuthorizationRequest, role: Role, plan: Plan, client: Client, workspaceId: WorkspaceId) {
    const options = consentOptions(request, role, plan, client)
    if (!options.showPlatforms) return options
    const platforms = yield* connectedPlatforms(workspaceId).pipe(
      Effect.catchTag("PlatformUnavailable", () => Effect.succeed(null))
    )
    return { ...options, platforms }
  }
)
