// The test world of the token endpoint and the connection lifecycle: memory stores, a Directory whose availability
// a test controls, Web Crypto secrets, an issuer, one paid workspace with people, and one client of each kind.
import { Clock, Context, Effect, Layer, Option } from "effect"
import {
  ClientStore,
  CodeStore,
  Directory,
  Issuer,
  type SecretHash,
  Secrets,
  type AuthorizationCode,
  type Client,
  type Role,
  type Scope,
  type Surface,
  WorkspaceId,
  UserId,
  ClientId
} from "@adgate/core"
import {
  CoreMemory,
  type DirectoryMemoryControl,
  GrantReaderMemory,
  makeDirectoryMemory,
  SecretsWebCrypto,
  WriteRequestStoreMemory
} from "@adgate/core/testing"

export const origin = "https://adgate.example"

export class DirectoryControl extends Context.Service<DirectoryControl, DirectoryMemoryControl>()("test/DirectoryControl") {}

const DirectoryWithControl = Layer.effectContext(
  Effect.map(makeDirectoryMemory, ({ directory, control }) =>
    Context.make(Directory, directory).pipe(Context.add(DirectoryControl, control)))
)

export const World = GrantReaderMemory.pipe(
  Layer.provideMerge(Layer.mergeAll(CoreMemory, SecretsWebCrypto, Issuer.layer(origin), WriteRequestStoreMemory)),
  Layer.provideMerge(DirectoryWithControl)
)

export const ws = WorkspaceId.make("ws_1")
export const people = { admin: UserId.make("usr_admin"), admin2: UserId.make("usr_admin2"), editor: UserId.make("usr_editor"), viewer: UserId.make("usr_viewer") } as const
export const secrets = { conf: "apcs_conf-secret", post: "apcs_post-secret" } as const

const client = (clientId: string, authMethod: Client["authMethod"], secretHash: SecretHash | null, over: Partial<Client> = {}): Client => ({
  clientId: ClientId.make(clientId), version: 1, kind: "dynamic", name: `App ${clientId}`, redirectUris: ["https://app.example/cb"], authMethod,
  secretHash, workspaceId: null, recognised: false, createdAt: 0, lastTokenAt: null, removedAt: null, documentHost: null,
  cacheUntil: null, ...over
})

/** Seeds the workspace, its people and the clients `pub`, `pub2`, `conf` (Basic), `post` and a workspace app `own`. */
export const seed = Effect.gen(function* () {
  const directory = yield* Directory
  const hash = (yield* Secrets).hash
  yield* directory.createWorkspace({ id: ws, name: "Acme Ads", plan: "paid", credits: 100, createdAt: 0 })
  const roles: ReadonlyArray<readonly [UserId, Role]> = [
    [people.admin, "admin"], [people.admin2, "admin"], [people.editor, "editor"], [people.viewer, "viewer"]
  ]
  for (const [id, role] of roles) {
    yield* directory.createUser({ id, email: `${id}@acme.example`, name: `Person ${id}`, createdAt: 0 })
    yield* directory.setRole(ws, id, Option.some(role))
  }
  const clients = yield* ClientStore
  yield* clients.insert(client("apc_pub", "none", null))
  yield* clients.insert(client("apc_pub2", "none", null))
  yield* clients.insert(client("apc_conf", "client_secret_basic", yield* hash(secrets.conf)))
  yield* clients.insert(client("apc_post", "client_secret_post", yield* hash(secrets.post)))
  yield* clients.insert(client("apc_own", "none", null, { kind: "workspace_app", workspaceId: ws, recognised: true, name: "Own app" }))
})

/** A PKCE verifier (43 chars of the unreserved set) distinct per label. */
export const verifierFor = (label: string) => `v${label}`.padEnd(43, "x").replace(/[^A-Za-z0-9\-._~]/g, "_")

export interface CodeOptions {
  readonly clientId?: string
  readonly userId?: UserId
  readonly scopes?: ReadonlyArray<Scope>
  readonly surface?: Surface
  readonly redirectUriSent?: boolean
  readonly label?: string
}

/** Inserts an issued code as the consent decision would (A's decideConsent), answering its value and verifier. */
export const insertCode = (options: CodeOptions = {}) =>
  Effect.gen(function* () {
    const s = yield* Secrets
    const now = yield* Clock.currentTimeMillis
    const label = options.label ?? "a"
    const value = yield* s.generate("apo_ac_")
    const verifier = verifierFor(label)
    const code: AuthorizationCode = {
      hash: yield* s.hash(value),
      version: 1,
      clientId: ClientId.make(options.clientId ?? "apc_pub"),
      redirectUri: "https://app.example/cb",
      redirectUriSent: options.redirectUriSent ?? true,
      codeChallenge: yield* s.hash(verifier),
      userId: options.userId ?? people.admin,
      workspaceId: ws,
      scopes: options.scopes ?? ["tasks:read", "tasks:write", "tools:read"],
      surface: options.surface ?? "mcp",
      platforms: "all",
      writeMode: "wait",
      issuedAt: now,
      expiresAt: now + 10 * 60 * 1000,
      status: "issued",
      failedAttempts: 0,
      connectionId: null
    }
    yield* (yield* CodeStore).insert(code)
    return { value, verifier, hash: code.hash }
  })

/** Token-endpoint form parameters from a record, in order. */
export const form = (record: Readonly<Record<string, string>>): ReadonlyArray<readonly [string, string]> => Object.entries(record)

/** The authorization_code grant of the public client for a code made by `insertCode`. */
export const codeGrant = (code: { readonly value: string; readonly verifier: string }, extra: Readonly<Record<string, string>> = {}) =>
  form({
    grant_type: "authorization_code", code: code.value, redirect_uri: "https://app.example/cb", code_verifier: code.verifier,
    client_id: "apc_pub", ...extra
  })

export const refreshGrant = (refreshToken: string, extra: Readonly<Record<string, string>> = {}) =>
  form({ grant_type: "refresh_token", refresh_token: refreshToken, client_id: "apc_pub", ...extra })
