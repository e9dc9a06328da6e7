// The web app's own data, as it had it before adgate: people with passwords, sessions, workspaces and their members,
// and its ad campaigns. An in-memory stand-in for the app's database: adgate reads these tables through the ports in
// adgate.ts and never writes them.
import { randomBytes, scryptSync, timingSafeEqual } from "node:crypto"

export type Role = "admin" | "editor" | "viewer"
export interface User { readonly id: string; readonly email: string; readonly name: string; readonly passwordHash: string }
export interface Workspace { readonly id: string; readonly name: string; readonly plan: "free" | "paid" }
export interface Campaign { readonly id: string; readonly workspaceId: string; name: string; dailyBudget: number; status: "ACTIVE" | "PAUSED" }

const hashPassword = (password: string) => {
  const salt = randomBytes(16)
  return `${salt.toString("base64url")}.${scryptSync(password, salt, 32).toString("base64url")}`
}

export const passwordMatches = (user: User, password: string) => {
  const [salt, hash] = user.passwordHash.split(".")
  return timingSafeEqual(scryptSync(password, Buffer.from(salt!, "base64url"), 32), Buffer.from(hash!, "base64url"))
}

export const makeData = () => {
  const users = new Map<string, User>()
  const workspaces = new Map<string, Workspace>()
  const members = new Map<string, Role>() // `${workspaceId} ${userId}` → role
  const sessions = new Map<string, { readonly userId: string; readonly expiresAt: number }>()
  const campaigns = new Map<string, Campaign>()
  return {
    users, workspaces, members, sessions, campaigns,
    addUser(id: string, email: string, name: string, password: string) {
      users.set(id, { id, email, name, passwordHash: hashPassword(password) })
    },
    addWorkspace(workspace: Workspace, roles: Readonly<Record<string, Role>>) {
      workspaces.set(workspace.id, workspace)
      for (const [userId, role] of Object.entries(roles)) members.set(`${workspace.id} ${userId}`, role)
    },
    roleOf: (workspaceId: string, userId: string): Role | null => members.get(`${workspaceId} ${userId}`) ?? null,
    /** A new session for the person: its id is the cookie's value (random, 256 bits). */
    openSession(userId: string) {
      const id = randomBytes(32).toString("base64url")
      sessions.set(id, { userId, expiresAt: Date.now() + 12 * 3_600_000 })
      return id
    },
    sessionUser(id: string | undefined): User | null {
      const session = id === undefined ? undefined : sessions.get(id)
      return session === undefined || session.expiresAt <= Date.now() ? null : users.get(session.userId) ?? null
    }
  }
}
export type Data = ReturnType<typeof makeData>
