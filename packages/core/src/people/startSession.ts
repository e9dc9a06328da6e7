// A browser session for a person who proved who they are (docs/decisions.md, People): 12 hours, found by the
// SHA-256 of its secret (the cookie value), working in the person's first workspace until they switch.
import { Clock, Effect } from "effect"
import { runCreation } from "../commands/runCommand.ts"
import type { User } from "../workspaces/Workspace.ts"
import { Directory } from "../ports/Directory.ts"
import { PeopleStore } from "../ports/PeopleStore.ts"
import { Prefix, Secrets } from "../ports/Secrets.ts"
import type { Session } from "./records.ts"
import { directoryDown } from "./directoryDown.ts"

export const sessionLifetimeMs = 12 * 60 * 60 * 1000

export interface SignedIn {
  readonly session: Session
  /** The session's secret, for the cookie only: shown to the browser once, stored only as its hash. */
  readonly secret: string
}

export const startSession = Effect.fn("people.startSession")(function* (user: User) {
  const secrets = yield* Secrets
  const now = yield* Clock.currentTimeMillis
  const secret = yield* secrets.generate(Prefix.session)
  const workspaces = yield* (yield* Directory).workspacesOf(user.id).pipe(Effect.mapError(directoryDown("Directory.workspacesOf")))
  const session: Session = {
    hash: yield* secrets.hash(secret),
    userId: user.id,
    workspaceId: workspaces[0]?.workspace.id ?? null,
    createdAt: now,
    expiresAt: now + sessionLifetimeMs,
    revokedAt: null
  }
  // A creation without an event (a session belongs to a person, not to a workspace's audit log): the INSERT alone.
  return yield* runCreation((yield* PeopleStore).insertSession(session), { session, secret } satisfies SignedIn, [])
})
