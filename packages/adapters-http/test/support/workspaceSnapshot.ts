// What a refused request must leave alone in one workspace, as one comparable string: audit entries, tool usage rows,
// queued writes, tasks, API keys (and whether revoked) and credits. Read through the server's own ports.
import { Effect, Option } from "effect"
import { ApiKeyStore, AuditLog, Directory, TaskStore, ToolUsageLog, type WorkspaceId, WriteRequestStore } from "@adgate/core"

export const workspaceSnapshot = (workspaceId: WorkspaceId) =>
  Effect.gen(function* () {
    return JSON.stringify([
      (yield* (yield* AuditLog).list(workspaceId)).length,
      (yield* (yield* ToolUsageLog).list(workspaceId, 1_000)).length,
      (yield* (yield* WriteRequestStore).listPending(workspaceId)).length,
      (yield* (yield* TaskStore).list(workspaceId, { limit: 1_000, skip: 0, status: null })).length,
      (yield* (yield* ApiKeyStore).listByWorkspace(workspaceId)).map((k) => `${k.id}:${k.revokedAt}`),
      Option.map(yield* (yield* Directory).workspace(workspaceId), (w) => w.credits)
    ])
  }).pipe(Effect.orDie)
