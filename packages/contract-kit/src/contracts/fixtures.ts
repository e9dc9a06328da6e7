// Records for the store contracts: every call makes fresh, unique ids, so tests share a store without clashing.
import type {
  AccessToken, ApiKey, AuditEntry, AuthorizationCode, Client, Connection, ConsentPage, MailMessage, Session, Task,
  ToolUsage, User, Workspace, WriteRequest
} from "@adgate/core"
import { ApiKeyId, ConnectionId, SecretHash, UserId, WorkspaceId, WriteRequestId, ClientId, TaskId, ConsentPageId, MailId } from "@adgate/core"
import type { Vitest } from "@effect/vitest"
import { randomBytes } from "node:crypto"

/** What a contract needs from its caller: somewhere to register a described group of tests over a layer. */
export type ContractHost<R> = Pick<Vitest.MethodsNonLive<R>, "layer">

export const unique = (prefix: string) => `${prefix}${randomBytes(12).toString("base64url")}`
/** A unique stand-in for a SHA-256 hash (the stores compare hashes, never compute them). */
export const uniqueHash = (prefix: string) => SecretHash.make(unique(prefix))

const t0 = 1_767_225_600_000 // 2026-01-01T00:00:00Z

export const aClient = (over: Partial<Client> = {}): Client => ({
  clientId: ClientId.make(unique("apc_")),
  version: 1,
  kind: "dynamic",
  name: "Test app",
  redirectUris: ["https://app.example/cb"],
  authMethod: "none",
  secretHash: null,
  workspaceId: null,
  recognised: false,
  productName: null,
  createdAt: t0,
  lastTokenAt: null,
  removedAt: null,
  documentHost: null,
  cacheUntil: null,
  ...over
})

export const aConsentPage = (over: Partial<ConsentPage> = {}): ConsentPage => ({
  id: ConsentPageId.make(unique("cp_")),
  version: 1,
  request: {
    clientId: ClientId.make(unique("apc_")),
    redirectUri: "https://app.example/cb",
    redirectUriSent: true,
    scopes: ["tools:read", "tasks:read"],
    codeChallenge: "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM",
    state: "s1",
    surface: "mcp"
  },
  userId: UserId.make(unique("usr_")),
  workspaceId: WorkspaceId.make(unique("ws_")),
  csrfHash: uniqueHash("h"),
  openedAt: t0,
  expiresAt: t0 + 600_000,
  status: "open",
  ...over
})

export const aCode = (over: Partial<AuthorizationCode> = {}): AuthorizationCode => ({
  hash: uniqueHash("code-hash-"),
  version: 1,
  clientId: ClientId.make(unique("apc_")),
  redirectUri: "https://app.example/cb",
  redirectUriSent: true,
  codeChallenge: "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM",
  userId: UserId.make(unique("usr_")),
  workspaceId: WorkspaceId.make(unique("ws_")),
  scopes: ["tools:read", "tools:write"],
  surface: "both",
  platforms: ["meta", "google"],
  writeMode: "wait",
  issuedAt: t0,
  expiresAt: t0 + 600_000,
  status: "issued",
  failedAttempts: 0,
  connectionId: null,
  ...over
})

export const aConnection = (over: Partial<Connection> = {}): Connection => ({
  id: ConnectionId.make(unique("con_")),
  version: 1,
  clientId: ClientId.make(unique("apc_")),
  workspaceId: WorkspaceId.make(unique("ws_")),
  approverId: UserId.make(unique("usr_")),
  scopes: ["tasks:read", "accounts:read"],
  surface: "mcp",
  platforms: "all",
  writeMode: "apply",
  status: "active",
  endedReason: null,
  createdAt: t0,
  endedAt: null,
  expiresAt: t0 + 365 * 86_400_000,
  roleConfirmedAt: t0,
  refresh: { hash: uniqueHash("rt-hash-"), generation: 1, issuedAt: t0 },
  spent: null,
  withdrawn: [],
  lastUsedAt: t0,
  ...over
})

export const anAccessToken = (over: Partial<AccessToken> = {}): AccessToken => ({
  hash: uniqueHash("at-hash-"),
  connectionId: ConnectionId.make(unique("con_")),
  generation: 1,
  clientId: ClientId.make(unique("apc_")),
  workspaceId: WorkspaceId.make(unique("ws_")),
  scopes: ["tools:read"],
  surface: "rest",
  issuedAt: t0,
  expiresAt: t0 + 3_600_000,
  revokedAt: null,
  ...over
})

export const anApiKey = (over: Partial<ApiKey> = {}): ApiKey => ({
  id: ApiKeyId.make(unique("key_")),
  hash: uniqueHash("key-hash-"),
  version: 1,
  workspaceId: WorkspaceId.make(unique("ws_")),
  name: "CI key",
  createdBy: UserId.make(unique("usr_")),
  scopes: ["tools:read", "tools:raw"],
  toolWrites: "wait",
  createdAt: t0,
  lastUsedAt: null,
  revokedAt: null,
  ...over
})

export const aWorkspace = (over: Partial<Workspace> = {}): Workspace => ({
  id: WorkspaceId.make(unique("ws_")),
  name: "Acme",
  plan: "free",
  credits: 100,
  createdAt: t0,
  ...over
})

export const aUser = (over: Partial<User> = {}): User => ({
  id: UserId.make(unique("usr_")),
  email: `${unique("p")}@example.com`,
  name: "Pat",
  createdAt: t0,
  ...over
})

export const anAuditEntry = (over: Partial<AuditEntry> = {}): AuditEntry => ({
  id: unique("aud_"),
  workspaceId: WorkspaceId.make(unique("ws_")),
  at: t0,
  actorId: null,
  action: "connection.approved",
  clientId: ClientId.make(unique("apc_")),
  connectionId: ConnectionId.make(unique("con_")),
  detail: { scopes: ["tools:read"], surface: "mcp" },
  ...over
})

export const aMail = (over: Partial<MailMessage> = {}): MailMessage => ({
  id: MailId.make(unique("mail_")),
  to: "pat@example.com",
  subject: "A new app was connected",
  text: "Hello",
  createdAt: t0,
  sentAt: null,
  version: 0,
  attempt: 0,
  leaseUntil: null,
  ...over
})

export const aSession = (over: Partial<Session> = {}): Session => ({
  hash: uniqueHash("ses-hash-"),
  userId: UserId.make(unique("usr_")),
  workspaceId: null,
  createdAt: t0,
  expiresAt: t0 + 86_400_000,
  revokedAt: null,
  ...over
})

export const aWriteRequest = (over: Partial<WriteRequest> = {}): WriteRequest => ({
  id: WriteRequestId.make(unique("rwq_")),
  version: 1,
  workspaceId: WorkspaceId.make(unique("ws_")),
  connectionId: ConnectionId.make(unique("con_")),
  apiKeyId: null,
  requestedBy: UserId.make(unique("usr_")),
  tool: "meta__pause_campaign",
  arguments: { accountId: "act_1", campaign: { id: "c-9", labels: ["q1", "brand"] }, dryRun: false, budget: 12.5 },
  argumentsHash: unique("args-hash-"),
  reason: "approval",
  status: "pending_approval",
  providerStatus: null,
  result: null,
  attempt: 0,
  leaseUntil: null,
  decidedBy: null,
  decidedAt: null,
  createdAt: t0,
  expiresAt: t0 + 7 * 86_400_000,
  updatedAt: t0,
  ...over
})

export const aTask = (over: Partial<Task> = {}): Task => ({
  id: TaskId.make(unique("task_")),
  version: 1,
  workspaceId: WorkspaceId.make(unique("ws_")),
  createdBy: UserId.make(unique("usr_")),
  connectionId: null,
  apiKeyId: ApiKeyId.make(unique("key_")),
  scopes: null,
  goal: "Pause every campaign that spent over budget last week",
  status: "planning",
  plan: null,
  attempt: 0,
  leaseUntil: null,
  report: null,
  createdAt: t0,
  updatedAt: t0,
  ...over
})

export const aToolUsage = (over: Partial<ToolUsage> = {}): ToolUsage => ({
  id: unique("use_"),
  workspaceId: WorkspaceId.make(unique("ws_")),
  connectionId: ConnectionId.make(unique("con_")),
  apiKeyId: null,
  tool: "google__campaign_report",
  kind: "read",
  outcome: "succeeded",
  credits: 1,
  at: t0,
  ...over
})

export { t0 }
