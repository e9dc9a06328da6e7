// Ends the session of a secret, if it is live (sign-out, and the session a new sign-in replaces: checklist M 162).
import { Clock, Effect, Option } from "effect"
import { runWrite } from "../commands/runCommand.ts"
import { PeopleStore } from "../ports/PeopleStore.ts"
import { findLiveSession } from "./resolveSession.ts"

export const signOut = Effect.fn("people.signOut")(function* (secret: string) {
  const found = yield* findLiveSession(secret)
  if (Option.isNone(found)) return
  // A session has no version: the last write wins (a second sign-out revokes it again). No event: the UPDATE alone.
  yield* runWrite((yield* PeopleStore).updateSession({ ...found.value, revokedAt: yield* Clock.currentTimeMillis }), undefined, [])
})
