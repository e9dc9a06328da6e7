// Who is signed in on a request, when the host signs people in itself (docs/embedding.md, Who is signed in). Without
// this port adgate's own sign-in pages and session cookie answer (adapters-http People); with it, the host's own
// session does, and adgate's pages send a person who is not signed in to the host's sign-in page.
import { Context, Effect, Option, Schema } from "effect"
import type { UserId } from "../workspaces/Workspace.ts"

/** The host's session store or user table could not answer now: the page answers 503, nothing is decided. */
export class SignInUnavailable extends Schema.TaggedError<SignInUnavailable>()("SignInUnavailable", {
  message: Schema.String
}) {}

/** What the port is given of a request: its method, absolute URL, headers (lower-case names) and cookies. */
export interface SignInRequest {
  readonly method: string
  readonly url: string
  readonly headers: Readonly<Record<string, string | undefined>>
  readonly cookies: Readonly<Record<string, string | undefined>>
}

/** The person the host has signed in, by the Directory's id, and a value that binds adgate's CSRF tokens. */
export interface HostSignedIn {
  readonly userId: UserId
  /**
   * A value that is unique to this session, stays the same for its whole life and is secret to the person's browser
   * (the host's session id or session cookie value). adgate derives its CSRF tokens from it (never stores or logs
   * it): a new session gives new tokens, and nobody who does not hold the session can compute them.
   */
  readonly sessionKey: string
}

export interface SignInShape {
  /**
   * The person signed in on this request, none when nobody is (no cookie, an expired or unknown session: never a
   * failure). Fails SignInUnavailable only when the host cannot tell now.
   */
  readonly current: (request: SignInRequest) => Effect.Effect<Option.Option<HostSignedIn>, SignInUnavailable>
  /**
   * The host's sign-in page, which returns the person to `returnTo` once signed in. `returnTo` is an absolute URL on
   * adgate's origin (the consent page's or a management page's address); the host must redirect only to addresses on
   * its own origin.
   */
  readonly signInUrl: (returnTo: string) => string
  /** Where adgate's Sign out button sends the person (the host's own sign-out). */
  readonly signOutUrl: string
}
export class SignIn extends Context.Service<SignIn, SignInShape>()("core/ports/SignIn") {}
