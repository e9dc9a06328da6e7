// The Directory contract (spec §What the service does 1): workspaces, people, roles, plans and credits.
import { Directory } from "@adgate/core"
import { assert } from "@effect/vitest"
import { Effect, Option } from "effect"
import type { Layer } from "effect"
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
      assert.isTrue(Option.isNone(yield* directory.workspace(unique("ws_"))))
      assert.isTrue(Option.isNone(yield* directory.user(unique("usr_"))))
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
      yield* directory.setRole(workspace.id, pat.id, Option.some("viewer"))
      yield* directory.setRole(workspace.id, pat.id, Option.some("admin"))
      yield* directory.setRole(workspace.id, sam.id, Option.some("editor"))
      yield* directory.setRole(other.id, pat.id, Option.some("viewer"))
      assert.deepStrictEqual(yield* directory.role(workspace.id, pat.id), Option.some("admin" as const))
      const members = [...(yield* directory.members(workspace.id))].sort((a, b) => a.user.createdAt - b.user.createdAt)
      assert.deepStrictEqual(members, [
        { workspaceId: workspace.id, userId: pat.id, role: "admin", user: pat },
        { workspaceId: workspace.id, userId: sam.id, role: "editor", user: sam }
      ])
      const of = [...(yield* directory.workspacesOf(pat.id))].sort((a, b) => a.workspace.createdAt - b.workspace.createdAt)
      assert.deepStrictEqual(of, [{ workspace, role: "admin" }, { workspace: other, role: "viewer" }])
      yield* directory.setRole(workspace.id, pat.id, Option.none())
      assert.isTrue(Option.isNone(yield* directory.role(workspace.id, pat.id)))
      assert.deepStrictEqual((yield* directory.members(workspace.id)).map((m) => m.userId), [sam.id])
    }))

    it.effect("plan and credits are set on the workspace", () => Effect.gen(function* () {
      const directory = yield* Directory
      const workspace = aWorkspace()
      yield* directory.createWorkspace(workspace)
      yield* directory.setPlan(workspace.id, "paid")
      yield* directory.setCredits(workspace.id, 2500)
      assert.deepStrictEqual(yield* directory.workspace(workspace.id), Option.some({ ...workspace, plan: "paid" as const, credits: 2500 }))
    }))
  })
