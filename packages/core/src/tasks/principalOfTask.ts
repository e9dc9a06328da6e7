// The Principal a task's tool calls run with (docs/tasks.md, Rights): the connection or API key that started it, as
// it is now, with the scopes of the credential that started it. A task does not outlive its credential: an ended
// connection or a revoked key answers why, and the task fails.
import { Clock, Effect, Option, Result } from "effect"
import type { Principal } from "../credentials/records.ts"
import { ApiKeyStore } from "../ports/ApiKeyStore.ts"
import { ConnectionStore } from "../ports/ConnectionStore.ts"
import type { Scope } from "../scopes/Scope.ts"
import type { Task } from "./Task.ts"

const narrowed = (task: Task, scopes: ReadonlyArray<Scope>): ReadonlyArray<Scope> =>
  task.scopes === null ? scopes : scopes.filter((s) => task.scopes!.includes(s))

export const principalOfTask = Effect.fn("tasks.principalOfTask")(function* (task: Task) {
  if (task.apiKeyId !== null) {
    const key = yield* (yield* ApiKeyStore).find(task.apiKeyId)
    if (Option.isNone(key) || key.value.revokedAt !== null || key.value.workspaceId !== task.workspaceId)
      return Result.fail("The API key that started this task was revoked.")
    return Result.succeed<Principal>({
      kind: "api_key", workspaceId: task.workspaceId, userId: key.value.createdBy, scopes: narrowed(task, key.value.scopes),
      surface: "both", platforms: "all", writeMode: key.value.toolWrites, connectionId: null, apiKeyId: key.value.id, clientId: null
    })
  }
  if (task.connectionId !== null) {
    const now = yield* Clock.currentTimeMillis
    const found = yield* (yield* ConnectionStore).find(task.connectionId)
    if (Option.isNone(found) || found.value.status === "ended" || now >= found.value.expiresAt || found.value.workspaceId !== task.workspaceId)
      return Result.fail("The connection that started this task has ended.")
    const c = found.value
    return Result.succeed<Principal>({
      kind: "connection", workspaceId: task.workspaceId, userId: c.approverId, scopes: narrowed(task, c.scopes),
      surface: c.surface, platforms: c.platforms, writeMode: c.writeMode, connectionId: c.id, apiKeyId: null, clientId: c.clientId
    })
  }
  return Result.fail("The task names neither a connection nor an API key.")
})
