// The Directory contract (spec §What the service does 1): workspaces, people, roles, plans and credits.
import { Directory, EmailTaken, roundCredits, WorkspaceId, UserId } from "@adgate/core"
import { assert } from "@effect/vitest"
import { Effect, Option, type Layer } from "effect"
import { aUser, aWorkspace, type ContractHost, t0, unique } from "./fixtures.ts"

export const directoryContract = <E, R>(name: string, layer: Layer.Layer<Directory, E, R>, host: ContractHost<R>) =>
  host.layer(layer)(`Directory contract (${name})`, (it) => {
    it.effect("workspaces and people read back; unknown ones are none", () => Effect.gen(function* () {
      const directory = yield* Directory
      const workspace = aWorkspace({ credits: 12.5 })
      const user = aUser({ email: `${unique("Mixed.Case")}@Example.com` })
      yield* directory.createWorkspace(workspace)
      yield* directory.createUser(user)
      assert.deepStrictEqual(yield* directory.workspace(workspace.id), Option.some(workspace))
      assert.deepStrictEqual(yield* directory.user(user.id), Option.some(user))
      assert.deepStrictEqual(yield* directory.userByEmail(user.email.toLowerCase()), Option.some(user))
      assert.isTrue(Option.isNone(yield* directory.workspace(WorkspaceId.make(unique("ws_")))))
      assert.isTrue(Option.isNone(yield* directory.user(UserId.make(unique("usr_")))))
      assert.isTrue(Option.isNone(yield* directory.userByEmail(`${unique("nobody")}@example.com`)))
    }))

    it.effect("a role is set, changed and removed; memberships list both ways", () => Effect.gen(function* () {
      const directory = yield* Directory
      const workspace = aWorkspace()
      const other = aWorkspace({ createdAt: t0 + 1 })
      const [pat, sam] = [aUser(), aUser({ createdAt: t0 + 1 })]
      yield* Effect.forEach([workspace, other], directory.createWorkspace)
      yield* Effect.forEach([pat, sam], directory.createUser)
      assert.isTrue(Option.isNone(yield* directory.role(workspace.id, pat.id)))
      // Each setting answers the role it replaced, none for a person who was not a member.
      assert.isTrue(Option.isNone(yield* directory.setRole(workspace.id, pat.id, Option.some("viewer"))))
      assert.deepStrictEqual(yield* directory.setRole(workspace.id, pat.id, Option.some("admin")), Option.some("viewer" as const))
      assert.isTrue(Option.isNone(yield* directory.setRole(workspace.id, sam.id, Option.some("editor"))))
      assert.isTrue(Option.isNone(yield* directory.setRole(other.id, pat.id, Option.some("viewer"))))
      assert.deepStrictEqual(yield* directory.role(workspace.id, pat.id), Option.some("admin" as const))
      const members = [...(yield* directory.members(workspace.id))].sort((a, b) => a.user.createdAt - b.user.createdAt)
      assert.deepStrictEqual(members, [
        { workspaceId: workspace.id, userId: pat.id, role: "admin", user: pat },
        { workspaceId: workspace.id, userId: sam.id, role: "editor", user: sam }
      ])
      const of = [...(yield* directory.workspacesOf(pat.id))].sort((a, b) => a.workspace.createdAt - b.workspace.createdAt)
      assert.deepStrictEqual(of, [{ workspace, role: "admin" }, { workspace: other, role: "viewer" }])
      assert.deepStrictEqual(yield* directory.setRole(workspace.id, pat.id, Option.none()), Option.some("admin" as const))
      assert.isTrue(Option.isNone(yield* directory.role(workspace.id, pat.id)))
      assert.isTrue(Option.isNone(yield* directory.setRole(workspace.id, pat.id, Option.none())), "no membership left to end")
      assert.deepStrictEqual((yield* directory.members(workspace.id)).map((m) => m.userId), [sam.id])
    }))

    it.effect("the standing reads the plan and the role together; none for an unknown workspace", () => Effect.gen(function* () {
      const directory = yield* Directory
      const workspace = aWorkspace()
      const [pat, sam] = [aUser(), aUser()]
      yield* directory.createWorkspace(workspace)
      yield* Effect.forEach([pat, sam], directory.createUser)
      yield* directory.setRole(workspace.id, pat.id, Option.some("editor"))
      assert.deepStrictEqual(yield* directory.standing(workspace.id, pat.id), Option.some({ plan: workspace.plan, role: "editor" as const }))
      // Not a member: the workspace's plan with no role.
      assert.deepStrictEqual(yield* directory.standing(workspace.id, sam.id), Option.some({ plan: workspace.plan, role: null }))
      yield* directory.setPlan(workspace.id, "paid")
      yield* directory.setRole(workspace.id, pat.id, Option.some("admin"))
      assert.deepStrictEqual(yield* directory.standing(workspace.id, pat.id), Option.some({ plan: "paid" as const, role: "admin" as const }))
      assert.isTrue(Option.isNone(yield* directory.standing(WorkspaceId.make(unique("ws_")), pat.id)))
    }))

    it.effect("plan and credits are set on the workspace", () => Effect.gen(function* () {
      const directory = yield* Directory
      const workspace = aWorkspace()
      yield* directory.createWorkspace(workspace)
      yield* directory.setPlan(workspace.id, "paid")
      yield* directory.setCredits(workspace.id, 2500)
      assert.deepStrictEqual(yield* directory.workspace(workspace.id), Option.some({ ...workspace, plan: "paid" as const, credits: 2500 }))
    }))

    it.effect("a balance a workspace is created with or set to is kept to six decimals as the ledgers keep it: 10.3 − 3 reads 7.3, never 7.300000000000001", () => Effect.gen(function* () {
      const directory = yield* Directory
      const created = aWorkspace({ credits: 10.3 - 3 })
      yield* directory.createWorkspace(created)
      assert.deepStrictEqual(yield* directory.workspace(created.id), Option.some({ ...created, credits: 7.3 }))
      // Core's roundCredits on every store, also where a double's half-way digit and a decimal rounding disagree:
      // 0.0001245 is 0.000124 as a double times 10⁶ (PostgreSQL's numeric round would give 0.000125).
      const small = aWorkspace({ credits: 0.0001245 })
      yield* directory.createWorkspace(small)
      assert.deepStrictEqual(yield* directory.workspace(small.id), Option.some({ ...small, credits: roundCredits(0.0001245) }))
      yield* directory.setCredits(small.id, 10.3 - 3)
      assert.deepStrictEqual(yield* directory.workspace(small.id), Option.some({ ...small, credits: 7.3 }))
      yield* directory.setCredits(created.id, 0.0001245)
      assert.deepStrictEqual(yield* directory.workspace(created.id), Option.some({ ...created, credits: roundCredits(0.0001245) }))
    }))

    it.effect("workspaces list oldest first with their member counts", () => Effect.gen(function* () {
      const directory = yield* Directory
      const [older, newer] = [aWorkspace({ createdAt: t0 - 2 }), aWorkspace({ createdAt: t0 - 1 })]
      const [pat, sam] = [aUser(), aUser()]
      yield* Effect.forEach([newer, older], directory.createWorkspace)
      yield* Effect.forEach([pat, sam], directory.createUser)
      yield* directory.setRole(older.id, pat.id, Option.some("admin"))
      yield* directory.setRole(older.id, sam.id, Option.some("viewer"))
      const listed = (yield* directory.listWorkspaces()).filter((l) => l.workspace.id === older.id || l.workspace.id === newer.id)
      assert.deepStrictEqual(listed, [{ workspace: older, members: 2 }, { workspace: newer, members: 0 }])
      assert.isFalse(yield* directory.isEmpty())
    }))

    it.effect("people list oldest first, each with their workspaces by name", () => Effect.gen(function* () {
      const directory = yield* Directory
      const zeta = aWorkspace({ name: `Zeta ${unique("")}` })
      const alpha = aWorkspace({ name: `Alpha ${unique("")}` })
      const [older, newer] = [aUser({ createdAt: t0 - 2 }), aUser({ createdAt: t0 - 1 })]
      yield* Effect.forEach([zeta, alpha], directory.createWorkspace)
      yield* Effect.forEach([newer, older], directory.createUser)
      yield* directory.setRole(zeta.id, older.id, Option.some("editor"))
      yield* directory.setRole(alpha.id, older.id, Option.some("admin"))
      const listed = (yield* directory.listUsers()).filter((l) => l.user.id === older.id || l.user.id === newer.id)
      assert.deepStrictEqual(listed, [
        { user: older, workspaces: [{ workspace: alpha, role: "admin" }, { workspace: zeta, role: "editor" }] },
        { user: newer, workspaces: [] }
      ])
    }))

    it.effect("workspaces are found by name ignoring case and surrounding spaces; two of one name are both found", () => Effect.gen(function* () {
      const directory = yield* Directory
      const name = unique("Acme Ads ")
      const [first, second] = [aWorkspace({ name, createdAt: t0 }), aWorkspace({ name: name.toUpperCase(), createdAt: t0 + 1 })]
      yield* directory.createWorkspace(first)
      assert.deepStrictEqual(yield* directory.workspacesNamed(`  ${name.toLowerCase()} `), [first])
      yield* directory.createWorkspace(second)
      assert.deepStrictEqual(yield* directory.workspacesNamed(name), [first, second])
      assert.deepStrictEqual(yield* directory.workspacesNamed(unique("nothing ")), [])
    }))

    it.effect("a second person with the same address, in any case, is refused EmailTaken and not stored", () => Effect.gen(function* () {
      const directory = yield* Directory
      const first = aUser({ email: `${unique("dana")}@example.com` })
      yield* directory.createUser(first)
      const second = aUser({ email: first.email.toUpperCase() })
      const refused = yield* Effect.flip(directory.createUser(second))
      assert.instanceOf(refused, EmailTaken)
      assert.isTrue(Option.isNone(yield* directory.user(second.id)))
      assert.deepStrictEqual(yield* directory.userByEmail(first.email), Option.some(first))
      // The same person saved again is not a clash with themselves.
      yield* directory.createUser({ ...first, name: "Dana" })
      assert.deepStrictEqual(yield* directory.user(first.id), Option.some({ ...first, name: "Dana" }))
    }))
  })
