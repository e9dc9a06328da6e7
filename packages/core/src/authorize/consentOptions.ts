// What the consent page offers, as data (spec §GET /oauth/authorize, "The consent page shows"): one checkbox per
// asked permission, struck through with the reason when the role or plan cannot grant it; platforms and the
// write-approval choice when they matter; verified or Unverified app label data.
import type { AuthorizationRequest } from "./ConsentPage.ts"
import type { PlatformOption } from "./connectedPlatforms.ts"
import type { Client, ClientKind } from "../clients/Client.ts"
import { redirectUriDestination } from "../clients/redirectUri.ts"
import { appIdentity } from "../clients/appIdentity.ts"
import { isToolScope, makesChanges, whyNotGrantable, type NotGrantable } from "../scopes/grant.ts"
import type { Scope, Surface } from "../scopes/Scope.ts"
import type { Plan, Role } from "../workspaces/Workspace.ts"

export interface ScopeOption {
  readonly scope: Scope
  readonly grantable: boolean
  readonly reason: NotGrantable | null
  /** Raw platform access is never pre-ticked; a permission the role cannot grant is not ticked either. */
  readonly preTicked: boolean
}

export interface ConsentOptions {
  readonly scopes: ReadonlyArray<ScopeOption>
  /**
   * Platforms (all connected, including later ones, or ticked ones) when platform tools are asked and this person
   * can grant one: for anyone else the choice could never take effect.
   */
  readonly showPlatforms: boolean
  /**
   * The workspace's connected platform families to tick one by one (with showPlatforms); null when the platforms
   * could not be listed just now, and the page then offers "all" only.
   */
  readonly platforms: ReadonlyArray<PlatformOption> | null
  /** Wait for approval / Apply ordinary changes at once, when changes are asked and this person can grant them. */
  readonly showWriteChoice: boolean
  /** Apply ordinary changes at once is a workspace admin's choice. */
  readonly canApplyAtOnce: boolean
  /** What the app connects to: MCP server, REST API or both. */
  readonly surface: Surface
  readonly app: {
    readonly name: string | null
    /** Recognised products show a verified label; every other app is an Unverified app with its name in quotes. */
    readonly verified: boolean
    readonly kind: ClientKind
    /** For metadata-document clients, the host serving the document. */
    readonly documentHost: string | null
    /** Where the person is sent back: the redirect URI and its host (checklist 159). */
    readonly redirectUri: string
    readonly redirectHost: string
  }
}

export const consentOptions = (
  request: AuthorizationRequest,
  role: Role,
  plan: Plan,
  client: Client,
  platforms: ReadonlyArray<PlatformOption> | null = []
): ConsentOptions => {
  const grantable = request.scopes.filter((scope) => whyNotGrantable(scope, role, plan) === null)
  return {
    scopes: request.scopes.map((scope) => {
      const reason = whyNotGrantable(scope, role, plan)
      return { scope, grantable: reason === null, reason, preTicked: reason === null && scope !== "tools:raw" }
    }),
    showPlatforms: grantable.some(isToolScope),
    platforms,
    showWriteChoice: makesChanges(grantable),
    canApplyAtOnce: role === "admin",
    surface: request.surface,
    app: {
      // A recognised product by its own name, any other app by its self-given one (clients/appIdentity.ts).
      name: appIdentity(client).name,
      verified: client.recognised,
      kind: client.kind,
      documentHost: client.documentHost,
      redirectUri: request.redirectUri,
      redirectHost: redirectUriDestination(request.redirectUri)
    }
  }
}
