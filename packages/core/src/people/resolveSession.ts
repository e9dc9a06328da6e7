// Who is signed in, from a session secret (the cookie value): the session while it is neither expired nor ended,
// the person, their workspaces, and the workspace they work in (docs/decisions.md, People).
import { Clock, Effect, Option } from "effect"
import type { Role, User, UserId, Workspace, WorkspaceId } from "../workspaces/Workspace.ts"
import { Directory } from "../ports/Directory.ts"
import { PeopleStore } from "../ports/PeopleStore.ts"
import { Prefix, Secrets } from "../ports/Secrets.ts"
import type { Session } from "./records.ts"
import { directoryDown } from "./directoryDown.ts"

export interface SignedInPerson {
  readonly user: User
  /** adgate's own session; null when the host signed the person in (the SignIn port: no session of adgate's). */
  readonly session: Session | null
  readonly workspaces: ReadonlyArray<{ readonly workspace: Workspace; readonly role: Role }>
  /** The workspace the person works in: the session's choice while still a member, else the first one, or null. */
  readonly workspaceId: WorkspaceId | null
}

/** The shape of a session secret: the prefix and 256 bits, base64url. Anything else is not looked up. */
export const isSessionSecret = (value: string): boolean => new RegExp(`^${Prefix.session}[A-Za-z0-9_-]{43}$`).test(value)

/** The live session of a secret, if any. */
export const findLiveSession = Effect.fn("people.findLiveSession")(function* (secret: string) {
  if (!isSessionSecret(secret)) return Option.none<Session>()
  const found = yield* (yield* PeopleStore).findSession(yield* (yield* Secrets).hash(secret))
  const now = yield* Clock.currentTimeMillis
  return Option.filter(found, (session) => session.revokedAt === null && session.expiresAt > now)
})

export const resolveSession = Effect.fn("people.resolveSession")(function* (secret: string) {
  const found = yield* findLiveSession(secret)
  if (Option.isNone(found)) return Option.none<SignedInPerson>()
  return yield* resolvePerson(found.value.userId, found.value)
})

/**
 * The person `userId` as the Directory knows them now, with their workspaces: none when it does not know them. With
 * adgate's own `session`, the workspace they work in is the session's choice while still a member; without one (the
 * host signed them in), and otherwise, the first workspace, or null.
 */
export const resolvePerson = Effect.fn("people.resolvePerson")(function* (userId: UserId, session: Session | null) {
  const directory = yield* Directory
  const user = yield* directory.user(userId).pipe(Effect.mapError(directoryDown("Directory.user")))
  if (Option.isNone(user)) return Option.none<SignedInPerson>()
  const workspaces = yield* directory.workspacesOf(userId).pipe(Effect.mapError(directoryDown("Directory.workspacesOf")))
  const chosen = session?.workspaceId ?? null
  const workspaceId = workspaces.some((w) => w.workspace.id === chosen) ? chosen : (workspaces[0]?.workspace.id ?? null)
  return Option.some<SignedInPerson>({ user: user.value, session, workspaces, workspaceId })
})
