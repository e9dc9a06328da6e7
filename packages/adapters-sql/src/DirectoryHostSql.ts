// The Directory when the host keeps its own people, workspaces, memberships and plans (docs/embedding.md, Directory):
// every read is the host's, asked at the moment it is needed (so a role removed by the host counts from the next
// request on), and adgate keeps only what its own tables must hold: a row per workspace the host has named, for the
// credits ledger (its balance and entries are adgate's, charged in the same unit of work as a tool call's usage).
// Writes are the host's business: the Directory's writes answer DirectoryUnavailable here.
import { Directory, type DirectoryShape, DirectoryUnavailable, type Workspace, type WorkspaceId } from "@adgate/core"
import { Effect, Layer, Option } from "effect"
import { SqlClient } from "effect/sql"

/** The reads a host answers from its own tables; `credits` of a workspace it answers is ignored (adgate's ledger). */
export type DirectoryReads = Pick<DirectoryShape, "workspace" | "user" | "userByEmail" | "role" | "workspacesOf" | "members">
  & Partial<Pick<DirectoryShape, "standing" | "listWorkspaces" | "listUsers" | "workspacesNamed">>

const keptByHost = (operation: string) =>
  Effect.fail(new DirectoryUnavailable({ message: `${operation}: people, workspaces and roles are kept by the host` }))

export const DirectoryHostSql = (host: DirectoryReads): Layer.Layer<Directory, never, SqlClient.SqlClient> =>
  Layer.effect(Directory, Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    // Workspaces whose row this process has already made sure of: a workspace is inserted once, not on every read.
    const mirrored = new Set<string>()
    const unavailable = (operation: string) => Effect.mapError(() => new DirectoryUnavailable({ message: `${operation}: the database did not answer` }))
    /** The workspace's row in adgate's tables (credits 0 when new), and its balance now. */
    const mirror = (workspace: Workspace) =>
      sql<{ readonly credits: number }>`INSERT INTO workspaces (id, name, plan, credits, created_at)
        VALUES (${workspace.id}, ${workspace.name}, ${workspace.plan}, 0, ${workspace.createdAt})
        ON CONFLICT (id) DO UPDATE SET name = EXCLUDED.name, plan = EXCLUDED.plan
        RETURNING credits`.pipe(
        unavailable("Directory.workspace"),
        Effect.map((rows) => {
          mirrored.add(workspace.id)
          return { ...workspace, credits: Number(rows[0]?.credits ?? 0) }
        })
      )
    const ensured = (workspace: Workspace) =>
      mirrored.has(workspace.id) ? Effect.void : Effect.asVoid(mirror(workspace))
    const withBalance = (found: Option.Option<Workspace>) =>
      Option.isNone(found) ? Effect.succeed(found) : Effect.map(mirror(found.value), Option.some)
    const standing = Effect.fnUntraced(function* (workspaceId: WorkspaceId, userId: Parameters<DirectoryShape["standing"]>[1]) {
      const workspace = yield* host.workspace(workspaceId)
      if (Option.isNone(workspace)) return Option.none()
      // Before any charge can be asked for it, the workspace has its row in the ledger.
      yield* ensured(workspace.value)
      const role = yield* host.role(workspaceId, userId)
      return Option.some({ plan: workspace.value.plan, role: Option.getOrNull(role) })
    })
    return Directory.of({
      workspace: (id) => Effect.flatMap(host.workspace(id), withBalance),
      user: host.user,
      userByEmail: host.userByEmail,
      role: host.role,
      standing: host.standing ?? standing,
      workspacesOf: host.workspacesOf,
      members: host.members,
      listWorkspaces: host.listWorkspaces ?? (() => Effect.succeed([])),
      listUsers: host.listUsers ?? (() => Effect.succeed([])),
      workspacesNamed: host.workspacesNamed ?? (() => Effect.succeed([])),
      // The host's directory is never "empty" to adgate: no first-start seeding writes into it.
      isEmpty: () => Effect.succeed(false),
      createWorkspace: () => keptByHost("Directory.createWorkspace"),
      createUser: () => keptByHost("Directory.createUser"),
      setRole: () => keptByHost("Directory.setRole"),
      setPlan: () => keptByHost("Directory.setPlan"),
      setCredits: () => keptByHost("Directory.setCredits")
    })
  }))
