// API keys created on the management page (spec §Authentication 11, §Tokens and codes: `ap_live_`, Tool writes
// setting). The secret is returned once; only its SHA-256 is stored. tools:* follow the OAuth rule (admin, paid plan).
import { Clock, Effect, Option } from "effect"
import { type ApiKey, ApiKeyId } from "./records.ts"
import { ApiKeyInvalid, ApiKeyNotAllowed, ApiKeyScopeNotGrantable } from "./errors.ts"
import { whyNotGrantable } from "../scopes/grant.ts"
import { canChooseApplyAtOnce, canCreateApiKeys } from "./apiKeyRules.ts"
import type { Scope, WriteMode } from "../scopes/Scope.ts"
import { Directory } from "../ports/Directory.ts"
import { Prefix, Secrets } from "../ports/Secrets.ts"
import { ApiKeyStore } from "../ports/ApiKeyStore.ts"
import { mintSecret } from "./issueTokenPair.ts"
import { runCreation } from "../commands/runCommand.ts"
import type { WorkspaceId, UserId } from "../workspaces/Workspace.ts"

export const apiKeyNameMaxLength = 100

export interface CreateApiKeyInput {
  readonly workspaceId: WorkspaceId
  readonly actorId: UserId
  readonly name: string
  readonly scopes: ReadonlyArray<Scope>
  readonly toolWrites: WriteMode
}

export const createApiKey = Effect.fn("credentials.createApiKey")(function* (input: CreateApiKeyInput) {
  const directory = yield* Directory
  const name = input.name.trim()
  if (name.length === 0 || name.length > apiKeyNameMaxLength || /[\u0000-\u001f\u007f]/.test(name))
    return yield* new ApiKeyInvalid({ message: `name must be 1 to ${apiKeyNameMaxLength} printable characters` })
  if (input.scopes.length === 0) return yield* new ApiKeyInvalid({ message: "at least one scope is needed" })
  const role = yield* directory.role(input.workspaceId, input.actorId)
  const workspace = yield* directory.workspace(input.workspaceId)
  if (Option.isNone(role) || Option.isNone(workspace)) return yield* new ApiKeyNotAllowed({ reason: "not_a_member" })
  if (!canCreateApiKeys(role.value)) return yield* new ApiKeyNotAllowed({ reason: "role_cannot_connect" })
  for (const scope of input.scopes) {
    const reason = whyNotGrantable(scope, role.value, workspace.value.plan)
    if (reason !== null) return yield* new ApiKeyScopeNotGrantable({ scope, reason })
  }
  // Applying ordinary changes at once is a workspace admin's choice, as on the consent page.
  if (input.toolWrites === "apply" && !canChooseApplyAtOnce(role.value)) return yield* new ApiKeyNotAllowed({ reason: "apply_needs_admin" })
  const secrets = yield* Secrets
  const secret = yield* mintSecret(Prefix.apiKey)
  const key: ApiKey = {
    id: ApiKeyId.make(yield* secrets.generate(Prefix.apiKeyId)),
    hash: secret.hash,
    version: 1,
    workspaceId: input.workspaceId,
    name,
    createdBy: input.actorId,
    scopes: [...new Set(input.scopes)],
    toolWrites: input.toolWrites,
    createdAt: yield* Clock.currentTimeMillis,
    lastUsedAt: null,
    revokedAt: null
  }
  // A creation on the runner: the insert and its ApiKeyCreated event (the audit entry api_key.created), never the secret.
  return yield* runCreation((yield* ApiKeyStore).insert(key), { key, secret: secret.value }, [{
    _tag: "ApiKeyCreated", at: key.createdAt, keyId: key.id, workspaceId: key.workspaceId, actorId: key.createdBy,
    name: key.name, scopes: key.scopes, toolWrites: key.toolWrites
  }])
})
