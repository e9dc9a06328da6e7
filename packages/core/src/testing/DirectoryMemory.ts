// In-memory Directory: workspaces, users and memberships. `unavailable` lets a test make the role look-up fail
// (the "role cannot be confirmed now" row of §States: Connection).
import { Effect, Layer, Option, Ref } from "effect"
import { Directory, DirectoryUnavailable } from "../ports/Directory.ts"
import type { Membership, Role, User, Workspace } from "../workspaces/Workspace.ts"
import { EmailTaken } from "../people/errors.ts"
import { roundCredits } from "../credits/CreditEntry.ts"

export interface DirectoryMemoryControl {
  readonly setUnavailable: (down: boolean) => Effect.Effect<void>
}

interface State {
  readonly workspaces: ReadonlyMap<string, Workspace>
  readonly users: ReadonlyMap<string, User>
  readonly memberships: ReadonlyArray<Membership>
  readonly down: boolean
}

export const makeDirectoryMemory = Effect.gen(function* () {
  const state = yield* Ref.make<State>({ workspaces: new Map(), users: new Map(), memberships: [], down: false })
  const read = <A>(f: (s: State) => A) =>
    Effect.flatMap(Ref.get(state), (s) =>
      s.down ? Effect.fail(new DirectoryUnavailable({ message: "directory is down" })) : Effect.succeed(f(s)))
  const write = (f: (s: State) => State) =>
    Effect.flatMap(read(() => undefined), () => Ref.update(state, f))
  const directory = Directory.of({
    workspace: (id) => read((s) => Option.fromNullishOr(s.workspaces.get(id))),
    user: (id) => read((s) => Option.fromNullishOr(s.users.get(id))),
    userByEmail: (email) =>
      read((s) => Option.fromNullishOr([...s.users.values()].find((u) => u.email.toLowerCase() === email.toLowerCase()))),
    role: (workspaceId, userId) =>
      read((s) => Option.fromNullishOr(s.memberships.find((m) => m.workspaceId === workspaceId && m.userId === userId)?.role)),
    standing: (workspaceId, userId) =>
      read((s) => Option.map(Option.fromNullishOr(s.workspaces.get(workspaceId)), (w) => ({
        plan: w.plan,
        role: s.memberships.find((m) => m.workspaceId === workspaceId && m.userId === userId)?.role ?? null
      }))),
    workspacesOf: (userId) =>
      read((s) => s.memberships.flatMap((m) => {
        const workspace = m.userId === userId ? s.workspaces.get(m.workspaceId) : undefined
        return workspace === undefined ? [] : [{ workspace, role: m.role }]
      })),
    members: (workspaceId) =>
      read((s) => s.memberships.flatMap((m) => {
        const user = m.workspaceId === workspaceId ? s.users.get(m.userId) : undefined
        return user === undefined ? [] : [{ ...m, user }]
      })),
    listWorkspaces: () =>
      read((s) => byAge([...s.workspaces.values()]).map((workspace) => ({
        workspace,
        members: s.memberships.filter((m) => m.workspaceId === workspace.id).length
      }))),
    listUsers: () =>
      read((s) => byAge([...s.users.values()]).map((user) => ({
        user,
        workspaces: s.memberships
          .flatMap((m) => {
            const workspace = m.userId === user.id ? s.workspaces.get(m.workspaceId) : undefined
            return workspace === undefined ? [] : [{ workspace, role: m.role }]
          })
          .sort((a, b) => a.workspace.name.localeCompare(b.workspace.name) || a.workspace.id.localeCompare(b.workspace.id))
      }))),
    workspacesNamed: (name) =>
      read((s) => byAge([...s.workspaces.values()].filter((w) => w.name.toLowerCase() === name.trim().toLowerCase()))),
    isEmpty: () => read((s) => s.users.size === 0 && s.workspaces.size === 0),
    createWorkspace: (workspace) =>
      write((s) => ({ ...s, workspaces: new Map(s.workspaces).set(workspace.id, { ...workspace, credits: roundCredits(workspace.credits) }) })),
    // Checked and written in one Ref step, like the SQL unique index on lower(email).
    createUser: (user) =>
      Effect.flatMap(read(() => undefined), () =>
        Ref.modify(state, (s): readonly [boolean, State] => {
          const taken = [...s.users.values()].some((u) => u.id !== user.id && u.email.toLowerCase() === user.email.toLowerCase())
          return taken ? [false, s] : [true, { ...s, users: new Map(s.users).set(user.id, user) }]
        })).pipe(Effect.flatMap((added) => (added ? Effect.void : Effect.fail(new EmailTaken({ email: user.email }))))),
    setRole: (workspaceId, userId, role) =>
      Effect.flatMap(read(() => undefined), () => Ref.modify(state, (s): readonly [Option.Option<Role>, State] => {
        const mine = (m: Membership) => m.workspaceId === workspaceId && m.userId === userId
        return [Option.fromNullishOr(s.memberships.find(mine)?.role), {
          ...s,
          memberships: [
            ...s.memberships.filter((m) => !mine(m)),
            ...Option.match(role, { onNone: () => [], onSome: (r) => [{ workspaceId, userId, role: r }] })
          ]
        }]
      })),
    setPlan: (workspaceId, plan) => write((s) => updateWorkspace(s, workspaceId, (w) => ({ ...w, plan }))),
    setCredits: (workspaceId, credits) => write((s) => updateWorkspace(s, workspaceId, (w) => ({ ...w, credits: roundCredits(credits) })))
  })
  const control: DirectoryMemoryControl = {
    setUnavailable: (down) => Ref.update(state, (s) => ({ ...s, down }))
  }
  return { directory, control }
})

const byAge = <A extends { readonly createdAt: number; readonly id: string }>(items: ReadonlyArray<A>) =>
  [...items].sort((a, b) => a.createdAt - b.createdAt || a.id.localeCompare(b.id))

const updateWorkspace = (s: State, id: string, f: (w: Workspace) => Workspace): State => {
  const w = s.workspaces.get(id)
  return w === undefined ? s : { ...s, workspaces: new Map(s.workspaces).set(id, f(w)) }
}

export const DirectoryMemory = Layer.effect(Directory, Effect.map(makeDirectoryMemory, (d) => d.directory))
