// Directory on SQL (spec §What the service does 1): workspaces with their plan and credits, people, and their
// roles. Reads that cannot be answered fail DirectoryUnavailable ("cannot confirm now"), never a defect. The Workspace,
// User and Membership Schemas are the rows (tableRow); nested records built in SQL carry their fields' names.
import { Directory, EmailTaken, Membership, Plan, Role, roundCredits, User, Workspace } from "@adgate/core"
import type { DirectoryUnavailable } from "@adgate/core"
import { Effect, Layer, Option, Schema } from "effect"
import { SqlClient } from "effect/sql"
import { decodeFirstRow, decodeRows } from "./decodeRow.ts"
import { tableRow } from "./tableRow.ts"
import { directoryUnavailable, unavailable } from "./unavailable.ts"

const workspaceRow = (operation: string) => ({ operation: `Directory.${operation}`, table: "workspaces", key: "id" })
const userRow = (operation: string) => ({ operation: `Directory.${operation}`, table: "users", key: "id" })
const membershipRow = (operation: string) => ({ operation: `Directory.${operation}`, table: "memberships", key: "userId" })

const workspaceTable = tableRow(Workspace, { table: "workspaces", key: "id" })
const userTable = tableRow(User, { table: "users", key: "id" })
const membershipTable = tableRow(Membership, { table: "memberships", key: "userId" })

const MemberRow = Schema.Struct({ ...Membership.fields, user: User })
const WorkspaceRoleRow = Schema.Struct({ workspace: Workspace, role: Role })
const ReplacedRow = Schema.Struct({ role: Schema.NullOr(Role) })
const StandingRow = Schema.Struct({ plan: Plan, role: Schema.NullOr(Role) })
const WorkspaceListingRow = Schema.Struct({ workspace: Workspace, members: Schema.Number })
const UserListingRow = Schema.Struct({ user: User, workspaces: Schema.Array(WorkspaceRoleRow) })

/** A workspace row as the JSON object the Workspace record decodes from. */
const workspaceJson = (w: string) =>
  `json_build_object('id', ${w}.id, 'name', ${w}.name, 'plan', ${w}.plan, 'credits', ${w}.credits, 'createdAt', ${w}.created_at)`

export const DirectorySql = Layer.effect(Directory, Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const decodeWorkspace = decodeFirstRow(Workspace, workspaceRow("workspace"))
  const decodeUser = decodeFirstRow(User, userRow("user"))
  const decodeUserByEmail = decodeFirstRow(User, userRow("userByEmail"))
  const decodeMembership = decodeFirstRow(Membership, membershipRow("role"))
  const decodeReplaced = decodeFirstRow(ReplacedRow, membershipRow("setRole"))
  const decodeStanding = decodeFirstRow(StandingRow, workspaceRow("standing"))
  const decodeWorkspacesOf = decodeRows(WorkspaceRoleRow, membershipRow("workspacesOf"))
  const decodeMembers = decodeRows(MemberRow, membershipRow("members"))
  const decodeWorkspaceListing = decodeRows(WorkspaceListingRow, { operation: "Directory.listWorkspaces", table: "workspaces", key: "workspace" })
  const decodeUserListing = decodeRows(UserListingRow, { operation: "Directory.listUsers", table: "users", key: "user" })
  const decodeNamed = decodeRows(Workspace, workspaceRow("workspacesNamed"))
  const read = <A, E>(operation: string, effect: Effect.Effect<A, E>): Effect.Effect<A, DirectoryUnavailable> =>
    effect.pipe(directoryUnavailable(`Directory.${operation}`))
  return Directory.of({
    workspace: (id) =>
      read("workspace", sql`SELECT * FROM workspaces WHERE id = ${id}`.pipe(
        Effect.flatMap(decodeWorkspace)
      )),
    user: (id) =>
      read("user", sql`SELECT * FROM users WHERE id = ${id}`.pipe(Effect.flatMap(decodeUser))),
    userByEmail: (email) =>
      read("userByEmail", sql`SELECT * FROM users WHERE lower(email) = lower(${email})`.pipe(
        Effect.flatMap(decodeUserByEmail)
      )),
    role: (workspaceId, userId) =>
      read("role", sql`SELECT workspace_id, user_id, role FROM memberships
        WHERE workspace_id = ${workspaceId} AND user_id = ${userId}`.pipe(
        Effect.flatMap(decodeMembership),
        Effect.map(Option.map((m) => m.role))
      )),
    // One statement, by primary keys: the plan and the role every REST and MCP request is checked against.
    standing: (workspaceId, userId) =>
      read("standing", sql`SELECT w.plan, m.role FROM workspaces w
        LEFT JOIN memberships m ON m.workspace_id = w.id AND m.user_id = ${userId}
        WHERE w.id = ${workspaceId}`.pipe(Effect.flatMap(decodeStanding))),
    // Nested records are built as JSON in SQL so that one decode checks the whole answer.
    workspacesOf: (userId) =>
      read("workspacesOf", sql`SELECT m.role, json_build_object('id', w.id, 'name', w.name, 'plan', w.plan,
          'credits', w.credits, 'createdAt', w.created_at) AS workspace
        FROM memberships m JOIN workspaces w ON w.id = m.workspace_id
        WHERE m.user_id = ${userId} ORDER BY w.created_at, w.id`.pipe(
        Effect.flatMap(decodeWorkspacesOf)
      )),
    members: (workspaceId) =>
      read("members", sql`SELECT m.workspace_id, m.user_id, m.role, json_build_object('id', u.id, 'email', u.email,
          'name', u.name, 'createdAt', u.created_at) AS "user"
        FROM memberships m JOIN users u ON u.id = m.user_id
        WHERE m.workspace_id = ${workspaceId} ORDER BY u.created_at, u.id`.pipe(
        Effect.flatMap(decodeMembers)
      )),
    listWorkspaces: () =>
      read("listWorkspaces", sql`SELECT ${sql.literal(workspaceJson("w"))} AS workspace,
          (SELECT count(*)::int FROM memberships m WHERE m.workspace_id = w.id) AS members
        FROM workspaces w ORDER BY w.created_at, w.id`.pipe(Effect.flatMap(decodeWorkspaceListing))),
    listUsers: () =>
      read("listUsers", sql`SELECT json_build_object('id', u.id, 'email', u.email, 'name', u.name, 'createdAt', u.created_at) AS "user",
          coalesce((SELECT json_agg(json_build_object('workspace', ${sql.literal(workspaceJson("w"))}, 'role', m.role) ORDER BY w.name, w.id)
            FROM memberships m JOIN workspaces w ON w.id = m.workspace_id WHERE m.user_id = u.id), '[]'::json) AS workspaces
        FROM users u ORDER BY u.created_at, u.id`.pipe(Effect.flatMap(decodeUserListing))),
    workspacesNamed: (name) =>
      read("workspacesNamed", sql`SELECT * FROM workspaces WHERE lower(name) = lower(${name.trim()})
        ORDER BY created_at, id`.pipe(Effect.flatMap(decodeNamed))),
    isEmpty: () =>
      read("isEmpty", sql<{ readonly empty: boolean }>`SELECT NOT EXISTS (SELECT 1 FROM users) AND NOT EXISTS (SELECT 1 FROM workspaces) AS empty`.pipe(
        Effect.map((rows) => rows[0]?.empty === true))),
    createWorkspace: (w) =>
      workspaceTable.encode({ ...w, credits: roundCredits(w.credits) }, "Directory.createWorkspace").pipe(
        Effect.flatMap((r) => sql`INSERT INTO workspaces ${sql.insert(r)} ON CONFLICT (id) DO UPDATE SET ${sql.update(r, ["id"])}`),
        Effect.asVoid,
        unavailable("Directory.createWorkspace")
      ),
    createUser: (u) =>
      userTable.encode(u, "Directory.createUser").pipe(
        Effect.flatMap((r) => sql`INSERT INTO users ${sql.insert(r)} ON CONFLICT (id) DO UPDATE SET ${sql.update(r, ["id"])}`),
        Effect.asVoid,
        // The unique index on lower(email) settles two adds of one address racing each other.
        Effect.catchReason("SqlError", "UniqueViolation", () => Effect.fail(new EmailTaken({ email: u.email }))),
        unavailable("Directory.createUser")
      ),
    // One statement answers the role it replaced. The CTE locks the row (FOR UPDATE) before the write, which reads
    // from it so that it runs first (a CTE only RETURNING reads would run after the write, and find no row): a setting
    // that committed while this statement waited for the row is what it replaces, and what it answers (a plain read
    // answers the statement's snapshot, the role before that setting). A membership another setting inserts
    // meanwhile (none to lock) is still answered as none.
    setRole: (workspaceId, userId, role) =>
      read("setRole", Option.match(role, {
        onNone: () => sql`DELETE FROM memberships WHERE workspace_id = ${workspaceId} AND user_id = ${userId} RETURNING role`,
        onSome: (role) =>
          membershipTable.encode({ workspaceId, userId, role }, "Directory.setRole").pipe(Effect.flatMap((r) =>
            sql`WITH replaced AS (SELECT role FROM memberships WHERE workspace_id = ${workspaceId} AND user_id = ${userId} FOR UPDATE)
              INSERT INTO memberships ${membershipTable.insertSelect(r)} FROM (SELECT count(*) FROM replaced) AS locked
              ON CONFLICT (workspace_id, user_id) DO UPDATE SET ${sql.update(r, ["workspaceId", "userId"])}
              RETURNING (SELECT role FROM replaced) AS role`))
      }).pipe(Effect.flatMap(decodeReplaced), Effect.map(Option.flatMap((row) => Option.fromNullishOr(row.role))))),
    setPlan: (workspaceId, plan) =>
      read("setPlan", sql`UPDATE workspaces SET plan = ${plan} WHERE id = ${workspaceId}`.pipe(Effect.asVoid)),
    setCredits: (workspaceId, credits) =>
      read("setCredits", sql`UPDATE workspaces SET credits = ${roundCredits(credits)} WHERE id = ${workspaceId}`.pipe(Effect.asVoid))
  })
}))
