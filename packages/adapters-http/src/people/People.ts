// People on the service's own pages: who is signed in (session cookie → Session → User and workspaces), sign-in
// with a password, sessions (12 h, cookie HttpOnly, SameSite=Lax, Secure on https), CSRF tokens bound to the
// session or to a pre-sign-in cookie (RFC 6749 §10.12; checklist M 154–157, 162), the workspace switch.
import { Clock, Context, Effect, Layer, Option } from "effect"
import type { HttpServerRequest, HttpServerResponse } from "effect/http"
import { HttpServerResponse as Response } from "effect/http"
import {
  constantTimeEqual,
  Directory,
  type DirectoryUnavailable,
  Issuer,
  PasswordHasher,
  PeopleStore,
  Prefix,
  RateLimiter,
  type Role,
  Secrets,
  type Session,
  StoreUnavailable,
  type User,
  type Workspace
} from "@adgate/core"
import { NotAMember } from "./errors.ts"
import { seeOther } from "../pages/layout.ts"
import { safeReturnTo } from "./returnTo.ts"
import { isCrossSite } from "../security.ts"

export const sessionLifetimeMs = 12 * 60 * 60 * 1000
const preSessionLifetimeMs = 60 * 60 * 1000

/** The signed-in person behind a request. `csrfToken` goes into every form the person may post. */
export interface Person {
  readonly user: User
  readonly session: Session
  readonly workspaces: ReadonlyArray<{ readonly workspace: Workspace; readonly role: Role }>
  /** The workspace the person works in: the session's choice while still a member, else the first one, or null. */
  readonly workspaceId: string | null
  readonly csrfToken: string
}

export type SignInOutcome =
  | { readonly _tag: "SignedIn"; readonly cookieValue: string; readonly session: Session }
  | { readonly _tag: "Refused" }
  | { readonly _tag: "RateLimited"; readonly retryAfterSeconds: number }

export interface SignInLimit {
  /** Attempts allowed per client address in one window. */
  readonly attempts: number
  readonly windowMs: number
}

export interface PeopleOptions {
  readonly signInLimit?: SignInLimit
}

export const defaultSignInLimit: SignInLimit = { attempts: 10, windowMs: 15 * 60 * 1000 }

export interface PeopleShape {
  /** `adgate_session`, or `__Host-adgate_session` when the issuer is https. */
  readonly sessionCookie: string
  /** The pre-sign-in cookie that binds the sign-in form's CSRF token. */
  readonly preSessionCookie: string
  readonly current: (request: HttpServerRequest.HttpServerRequest) => Effect.Effect<Option.Option<Person>, StoreUnavailable>
  /** `/signin?return_to=…` for a same-site `returnTo` (a path or an absolute URL on our origin); anything else returns to `/`. */
  readonly signInUrl: (returnTo: string) => string
  /** Redirects (303) to sign-in and back to this request's URL when nobody is signed in; otherwise runs `f`. */
  readonly requirePerson: <E, R>(
    request: HttpServerRequest.HttpServerRequest,
    f: (person: Person) => Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>
  ) => Effect.Effect<HttpServerResponse.HttpServerResponse, E | StoreUnavailable, R>
  readonly setWorkspace: (session: Session, workspaceId: string) => Effect.Effect<Session, StoreUnavailable | NotAMember>
  /**
   * True when a POST may change state: not cross-site, and `submitted` equals the CSRF token of the request's
   * session cookie (or, with `signInForm`, of its pre-sign-in cookie: only the sign-in POST accepts that one).
   * Compared in constant time.
   */
  readonly verifyCsrf: (
    request: HttpServerRequest.HttpServerRequest,
    submitted: string | undefined,
    options?: { readonly signInForm?: boolean }
  ) => Effect.Effect<boolean>
  /** The CSRF token for a cookie value (session or pre-sign-in). */
  readonly csrfTokenFor: (cookieValue: string) => Effect.Effect<string>
  readonly signIn: (email: string, password: string, address: string) => Effect.Effect<SignInOutcome, StoreUnavailable>
  /** Ends the request's session, if any. */
  readonly signOut: (request: HttpServerRequest.HttpServerRequest) => Effect.Effect<void, StoreUnavailable>
  /** Sets the session cookie (and clears the pre-sign-in cookie) on a response. */
  readonly withSessionCookie: (response: HttpServerResponse.HttpServerResponse, cookieValue: string) => HttpServerResponse.HttpServerResponse
  readonly withoutSessionCookie: (response: HttpServerResponse.HttpServerResponse) => HttpServerResponse.HttpServerResponse
  /** Ensures the pre-sign-in cookie: returns its value and the response transformer that sets it when new. */
  readonly preSession: (request: HttpServerRequest.HttpServerRequest) => Effect.Effect<{
    readonly value: string
    readonly set: (response: HttpServerResponse.HttpServerResponse) => HttpServerResponse.HttpServerResponse
  }>
}

export class People extends Context.Service<People, PeopleShape>()("adapters-http/People") {
  static readonly layer = (options: PeopleOptions = {}) => Layer.effect(People, makePeople(options))
}

const directoryDown = (operation: string) => (e: DirectoryUnavailable) =>
  new StoreUnavailable({ operation, message: e.message })

const cookiePattern = (prefix: string) => new RegExp(`^${prefix}[A-Za-z0-9_-]{43}$`)
const sessionValue = cookiePattern(Prefix.session)
const preSessionValue = cookiePattern(Prefix.csrf)

export const makePeople = (options: PeopleOptions) =>
  Effect.gen(function* () {
    const issuer = yield* Issuer
    const store = yield* PeopleStore
    const directory = yield* Directory
    const secrets = yield* Secrets
    const hasher = yield* PasswordHasher
    const limiter = yield* RateLimiter
    const limit = options.signInLimit ?? defaultSignInLimit
    const https = issuer.origin.startsWith("https://")
    // __Host- cookies must be Secure, Path=/ and without Domain: a sibling subdomain cannot plant them (M 157).
    const sessionCookie = https ? "__Host-adgate_session" : "adgate_session"
    const preSessionCookie = https ? "__Host-adgate_signin" : "adgate_signin"
    const cookieOptions = { httpOnly: true, sameSite: "lax", path: "/", secure: https } as const
    // An unknown address is verified against this, so it costs one scrypt like a wrong password.
    const decoyHash = yield* hasher.hash(`decoy-${yield* secrets.generate(Prefix.csrf)}`)

    const csrfTokenFor = (cookieValue: string) =>
      Effect.map(secrets.hash(`csrf:${cookieValue}`), (h) => `${Prefix.csrf}${h}`)

    const sessionOf = (request: HttpServerRequest.HttpServerRequest) =>
      Effect.gen(function* () {
        const value = request.cookies[sessionCookie]
        if (value === undefined || !sessionValue.test(value)) return Option.none()
        const found = yield* store.findSession(yield* secrets.hash(value))
        if (Option.isNone(found)) return Option.none()
        const now = yield* Clock.currentTimeMillis
        const session = found.value
        if (session.revokedAt !== null || session.expiresAt <= now) return Option.none()
        return Option.some({ session, value })
      })

    const current = (request: HttpServerRequest.HttpServerRequest) =>
      Effect.gen(function* () {
        const found = yield* sessionOf(request)
        if (Option.isNone(found)) return Option.none<Person>()
        const { session, value } = found.value
        const user = yield* directory.user(session.userId).pipe(Effect.mapError(directoryDown("directory.user")))
        if (Option.isNone(user)) return Option.none<Person>()
        const workspaces = yield* directory.workspacesOf(session.userId).pipe(Effect.mapError(directoryDown("directory.workspacesOf")))
        const workspaceId = workspaces.some((w) => w.workspace.id === session.workspaceId)
          ? session.workspaceId
          : (workspaces[0]?.workspace.id ?? null)
        return Option.some<Person>({ user: user.value, session, workspaces, workspaceId, csrfToken: yield* csrfTokenFor(value) })
      })

    const signInUrl = (returnTo: string) => {
      const target = safeReturnTo(returnTo, issuer.origin)
      return target === "/" ? "/signin" : `/signin?return_to=${encodeURIComponent(target)}`
    }

    const requirePerson = <E, R>(
      request: HttpServerRequest.HttpServerRequest,
      f: (person: Person) => Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>
    ) =>
      Effect.flatMap(current(request), (person) =>
        Option.isSome(person)
          ? f(person.value)
          : Effect.succeed(seeOther(signInUrl(request.url))))

    const setWorkspace = (session: Session, workspaceId: string) =>
      Effect.gen(function* () {
        const role = yield* directory.role(workspaceId, session.userId).pipe(Effect.mapError(directoryDown("directory.role")))
        if (Option.isNone(role)) return yield* new NotAMember({ workspaceId })
        const next = { ...session, workspaceId }
        yield* store.updateSession(next)
        return next
      })

    const verifyCsrf = (
      request: HttpServerRequest.HttpServerRequest,
      submitted: string | undefined,
      options?: { readonly signInForm?: boolean }
    ) =>
      Effect.gen(function* () {
        if (submitted === undefined || submitted === "" || isCrossSite(request, issuer.origin)) return false
        const bound: Array<string> = []
        const session = request.cookies[sessionCookie]
        if (session !== undefined && sessionValue.test(session)) bound.push(session)
        // The pre-sign-in cookie binds only the sign-in form: it can be planted on http (no __Host- prefix).
        const pre = request.cookies[preSessionCookie]
        if (options?.signInForm === true && pre !== undefined && preSessionValue.test(pre)) bound.push(pre)
        let ok = false
        for (const value of bound) if (constantTimeEqual(yield* csrfTokenFor(value), submitted)) ok = true
        return ok
      })

    const startSession = (user: User) =>
      Effect.gen(function* () {
        const now = yield* Clock.currentTimeMillis
        const cookieValue = yield* secrets.generate(Prefix.session)
        const workspaces = yield* directory.workspacesOf(user.id).pipe(Effect.mapError(directoryDown("directory.workspacesOf")))
        const session: Session = {
          hash: yield* secrets.hash(cookieValue),
          userId: user.id,
          workspaceId: workspaces[0]?.workspace.id ?? null,
          createdAt: now,
          expiresAt: now + sessionLifetimeMs,
          revokedAt: null
        }
        yield* store.insertSession(session)
        return { _tag: "SignedIn" as const, cookieValue, session }
      })

    const signIn = (email: string, password: string, address: string) =>
      Effect.gen(function* () {
        const now = yield* Clock.currentTimeMillis
        const decision = yield* limiter.hit(`signin:${address}`, limit.attempts, limit.windowMs, now)
        if (!decision.allowed) return { _tag: "RateLimited" as const, retryAfterSeconds: decision.retryAfterSeconds }
        const user = yield* directory.userByEmail(email.trim()).pipe(Effect.mapError(directoryDown("directory.userByEmail")))
        const stored = Option.isSome(user) ? yield* store.passwordHash(user.value.id) : Option.none<string>()
        // Always one scrypt, whether or not the address is known: the answer and its timing are the same.
        const matches = yield* hasher.verify(password, Option.getOrElse(stored, () => decoyHash))
        if (!matches || Option.isNone(user) || Option.isNone(stored)) return { _tag: "Refused" as const }
        return yield* startSession(user.value)
      })

    const signOut = (request: HttpServerRequest.HttpServerRequest) =>
      Effect.gen(function* () {
        const found = yield* sessionOf(request)
        if (Option.isNone(found)) return
        yield* store.updateSession({ ...found.value.session, revokedAt: yield* Clock.currentTimeMillis })
      })

    const withSessionCookie = (response: HttpServerResponse.HttpServerResponse, cookieValue: string) =>
      response.pipe(
        Response.setCookieUnsafe(sessionCookie, cookieValue, { ...cookieOptions, maxAge: `${sessionLifetimeMs} millis` }),
        Response.setCookieUnsafe(preSessionCookie, "", { ...cookieOptions, maxAge: 0 })
      )

    const withoutSessionCookie = (response: HttpServerResponse.HttpServerResponse) =>
      Response.setCookieUnsafe(response, sessionCookie, "", { ...cookieOptions, maxAge: 0 })

    const preSession = (request: HttpServerRequest.HttpServerRequest) =>
      Effect.gen(function* () {
        const existing = request.cookies[preSessionCookie]
        if (existing !== undefined && preSessionValue.test(existing))
          return { value: existing, set: (r: HttpServerResponse.HttpServerResponse) => r }
        const value = yield* secrets.generate(Prefix.csrf)
        return {
          value,
          set: (r: HttpServerResponse.HttpServerResponse) =>
            Response.setCookieUnsafe(r, preSessionCookie, value, { ...cookieOptions, maxAge: `${preSessionLifetimeMs} millis` })
        }
      })

    return People.of({
      sessionCookie,
      preSessionCookie,
      current,
      signInUrl,
      requirePerson,
      setWorkspace,
      verifyCsrf,
      csrfTokenFor,
      signIn,
      signOut,
      withSessionCookie,
      withoutSessionCookie,
      preSession
    })
  })
