// People on the service's own pages, the HTTP side only: the session cookie (12 h, HttpOnly, SameSite=Lax, Secure
// and __Host- on https), the pre-sign-in cookie, CSRF tokens bound to either (RFC 6749 §10.12; checklist M 154–157,
// 162), the one-time notice after a form (docs/decisions.md, "Notices after a form"), and "sign in first". Who a
// session is, sign-in, throttling and the workspace switch are the core's (packages/core/src/people). When the host
// signs people in (the core's SignIn port, docs/embedding.md), the host's session says who is signed in, CSRF tokens
// are bound to its session key, and "sign in first" goes to the host.
import { Context, Effect, Layer, Option } from "effect"
import { createHmac } from "node:crypto"
import type { HttpServerRequest, HttpServerResponse } from "effect/http"
import { HttpServerResponse as Response } from "effect/http"
import {
  constantTimeEqual,
  Directory,
  isSessionSecret,
  Issuer,
  PasswordHasher,
  PeopleStore,
  Prefix,
  RateLimiter,
  resolvePerson,
  resolveSession,
  Secrets,
  sessionLifetimeMs,
  SignIn,
  type SignedInPerson,
  StoreUnavailable
} from "@adgate/core"
import { type PortsOf, withPorts } from "@adgate/answers"
import { seeOther } from "../pages/layout.ts"
import { safeReturnTo } from "./returnTo.ts"
import { isCrossSite } from "../security.ts"

const preSessionLifetimeMs = 60 * 60 * 1000

/**
 * How long a notice waits for the page it was set for: the browser follows the 303 at once, so a minute is ample; a
 * notice never shown (the tab closed) is gone soon after.
 */
export const noticeLifetimeSeconds = 60
/** The longest notice kept (a sentence naming an app or a key); a longer one is cut, as the page showed it before. */
export const noticeMaxLength = 300
const noticeValue = /^([A-Za-z0-9_-]{1,1200})\.([A-Za-z0-9_-]{43})$/

/** The core ports the people services run on, captured when the layer is built; PeoplePorts is their union. */
export const peoplePortServices = [Directory, PeopleStore, PasswordHasher, RateLimiter, Secrets] as const

export type PeoplePorts = PortsOf<typeof peoplePortServices>

/** The signed-in person behind a request. `csrfToken` goes into every form the person may post. */
export interface Person extends SignedInPerson {
  readonly csrfToken: string
  /**
   * The one-line notice a form of this session left for this page (`withNotice`), or null. Only a notice this
   * server set, in this session, for this very path is read: a URL, another page's notice or a planted cookie shows
   * nothing.
   */
  readonly notice: string | null
}

export interface PeopleShape {
  /** The host's sign-out page when the host signs people in (SignIn port); none with adgate's own sign-in. */
  readonly hostSignOutUrl: Option.Option<string>
  /** `adgate_session`, or `__Host-adgate_session` when the issuer is https. */
  readonly sessionCookie: string
  /** The pre-sign-in cookie that binds the sign-in form's CSRF token. */
  readonly preSessionCookie: string
  /** The session secret the request's cookie carries, when it has the shape of one. */
  readonly sessionSecret: (request: HttpServerRequest.HttpServerRequest) => Option.Option<string>
  readonly current: (request: HttpServerRequest.HttpServerRequest) => Effect.Effect<Option.Option<Person>, StoreUnavailable>
  /** `/signin?return_to=…` for a same-site `returnTo` (a path or an absolute URL on our origin); anything else returns to `/`. */
  readonly signInUrl: (returnTo: string) => string
  /** Redirects (303) to sign-in and back to this request's URL when nobody is signed in; otherwise runs `f`. */
  readonly requirePerson: <E, R>(
    request: HttpServerRequest.HttpServerRequest,
    f: (person: Person) => Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>
  ) => Effect.Effect<HttpServerResponse.HttpServerResponse, E | StoreUnavailable, R>
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
  /** Sets the session cookie (and clears the pre-sign-in cookie) on a response. */
  readonly withSessionCookie: (response: HttpServerResponse.HttpServerResponse, secret: string) => HttpServerResponse.HttpServerResponse
  readonly withoutSessionCookie: (response: HttpServerResponse.HttpServerResponse) => HttpServerResponse.HttpServerResponse
  /**
   * Leaves `text` for the next page of this session at `path` (a 303's target): a cookie (HttpOnly, SameSite=Lax,
   * Secure on https, scoped to that path, `noticeLifetimeSeconds`) whose value carries the text and an HMAC of the
   * path and text under the session's secret. Read once into `Person.notice`; the page that reads it clears it.
   */
  readonly withNotice: (
    response: HttpServerResponse.HttpServerResponse,
    request: HttpServerRequest.HttpServerRequest,
    path: string,
    text: string
  ) => HttpServerResponse.HttpServerResponse
  /** Ensures the pre-sign-in cookie: returns its value and the response transformer that sets it when new. */
  readonly preSession: (request: HttpServerRequest.HttpServerRequest) => Effect.Effect<{
    readonly value: string
    readonly set: (response: HttpServerResponse.HttpServerResponse) => HttpServerResponse.HttpServerResponse
  }>
}

export class People extends Context.Service<People, PeopleShape>()("adapters-http/People") {
  static readonly layer = Layer.effect(People, Effect.suspend(() => makePeople))
}

/** The path of a URL or path, as a cookie's Path and the request that comes back name it. */
const pathOf = (url: string): string => new URL(url, "http://x").pathname

const preSessionValue = new RegExp(`^${Prefix.csrf}[A-Za-z0-9_-]{43}$`)

export const makePeople = Effect.gen(function* () {
    const issuer = yield* Issuer
    const secrets = yield* Secrets
    // What a request's person is resolved on (withPorts, @adgate/answers): the request's own context, with these ports.
    const ports = withPorts(peoplePortServices, yield* Effect.context<PeoplePorts>())
    const host = yield* Effect.serviceOption(SignIn)
    const https = issuer.origin.startsWith("https://")
    // __Host- cookies must be Secure, Path=/ and without Domain: a sibling subdomain cannot plant them (M 157).
    const sessionCookie = https ? "__Host-adgate_session" : "adgate_session"
    const preSessionCookie = https ? "__Host-adgate_signin" : "adgate_signin"
    const cookieOptions = { httpOnly: true, sameSite: "lax", path: "/", secure: https } as const
    // Scoped to one page's path, so no __Host- prefix; __Secure- keeps an http origin from setting it on https, and
    // the HMAC under the session's secret keeps anyone else (a sibling subdomain, an http page on the way) from
    // planting one that would be shown.
    const noticeCookie = https ? "__Secure-adgate_notice" : "adgate_notice"
    const noticeMac = (secret: string, path: string, encodedText: string) =>
      createHmac("sha256", secret).update(`notice\n${path}\n${encodedText}`).digest("base64url")

    /** The notice the request carries for its own path in this session, or null. */
    const noticeIn = (request: HttpServerRequest.HttpServerRequest, secret: string): string | null => {
      const match = noticeValue.exec(request.cookies[noticeCookie] ?? "")
      if (match === null) return null
      const [, encodedText, mac] = match
      if (!constantTimeEqual(mac!, noticeMac(secret, pathOf(request.url), encodedText!))) return null
      return Buffer.from(encodedText!, "base64url").toString("utf8")
    }

    const withNotice = (
      response: HttpServerResponse.HttpServerResponse,
      request: HttpServerRequest.HttpServerRequest,
      path: string,
      text: string
    ) => {
      const secret = sessionSecret(request)
      // No session, no notice: nothing to bind it to (the forms that leave one are signed-in pages).
      if (Option.isNone(secret)) return response
      const target = pathOf(path)
      const encodedText = Buffer.from(text.slice(0, noticeMaxLength), "utf8").toString("base64url")
      return Response.setCookieUnsafe(response, noticeCookie, `${encodedText}.${noticeMac(secret.value, target, encodedText)}`, {
        ...cookieOptions, path: target, maxAge: `${noticeLifetimeSeconds} seconds`
      })
    }

    /** A page read (GET) that was sent a notice cookie clears it at its own path: a notice is shown once. */
    const clearingNotice = (request: HttpServerRequest.HttpServerRequest) =>
      (response: HttpServerResponse.HttpServerResponse) =>
        request.method === "GET" && request.cookies[noticeCookie] !== undefined
          ? Response.setCookieUnsafe(response, noticeCookie, "", { ...cookieOptions, path: pathOf(request.url), maxAge: 0 })
          : response

    const csrfTokenFor = (cookieValue: string) =>
      Effect.map(secrets.hash(`csrf:${cookieValue}`), (h) => `${Prefix.csrf}${h}`)

    const sessionSecret = (request: HttpServerRequest.HttpServerRequest) =>
      Option.filter(Option.fromNullishOr(request.cookies[sessionCookie]), isSessionSecret)

    /** The host's session on this request (SignIn port): the person's id and the key CSRF tokens are bound to. */
    const hostSession = (signIn: SignIn["Service"], request: HttpServerRequest.HttpServerRequest) =>
      signIn.current({ method: request.method, url: new URL(request.url, issuer.origin).toString(), headers: request.headers, cookies: request.cookies }).pipe(
        // A host that cannot tell who is signed in is a dependency down: the page answers 503 and decides nothing.
        Effect.mapError((e) => new StoreUnavailable({ operation: "SignIn.current", message: e.message }))
      )
    // A prefix of its own, so that a host's session key can never give the token of one of adgate's cookie values.
    const hostCsrfValue = (sessionKey: string) => `host:${sessionKey}`

    const current = Effect.fnUntraced(function* (request: HttpServerRequest.HttpServerRequest) {
      if (Option.isSome(host)) {
        const signedIn = yield* hostSession(host.value, request)
        if (Option.isNone(signedIn)) return Option.none<Person>()
        const person = yield* resolvePerson(signedIn.value.userId, null).pipe(ports)
        if (Option.isNone(person)) return Option.none<Person>()
        // No one-time notice under a host's session: its MAC is keyed by adgate's own session secret, which a host's
        // session does not carry (docs/embedding.md, Known limits); the page itself still shows the new state.
        return Option.some<Person>({
          ...person.value, csrfToken: yield* csrfTokenFor(hostCsrfValue(signedIn.value.sessionKey)), notice: null
        })
      }
      const secret = sessionSecret(request)
      if (Option.isNone(secret)) return Option.none<Person>()
      const person = yield* resolveSession(secret.value).pipe(ports)
      if (Option.isNone(person)) return Option.none<Person>()
      return Option.some<Person>({ ...person.value, csrfToken: yield* csrfTokenFor(secret.value), notice: noticeIn(request, secret.value) })
    })

    const signInUrl = (returnTo: string) => {
      const target = safeReturnTo(returnTo, issuer.origin)
      if (Option.isSome(host)) return host.value.signInUrl(new URL(target, issuer.origin).toString())
      return target === "/" ? "/signin" : `/signin?return_to=${encodeURIComponent(target)}`
    }

    const requirePerson = <E, R>(
      request: HttpServerRequest.HttpServerRequest,
      f: (person: Person) => Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>
    ) =>
      Effect.flatMap(current(request), (person) =>
        Option.isSome(person)
          ? Effect.map(f(person.value), clearingNotice(request))
          : Effect.succeed(seeOther(signInUrl(request.url))))

    const verifyCsrf = Effect.fnUntraced(function* (
      request: HttpServerRequest.HttpServerRequest,
      submitted: string | undefined,
      options?: { readonly signInForm?: boolean }
    ) {
      if (submitted === undefined || submitted === "" || isCrossSite(request, issuer.origin)) return false
      const bound: Array<string> = []
      if (Option.isSome(host)) {
        // A host that cannot tell now is refused like a missing token: the form changes nothing.
        const signedIn = yield* hostSession(host.value, request).pipe(Effect.orElseSucceed(() => Option.none()))
        if (Option.isSome(signedIn)) bound.push(hostCsrfValue(signedIn.value.sessionKey))
      }
      const session = Option.isSome(host) ? Option.none<string>() : sessionSecret(request)
      if (Option.isSome(session)) bound.push(session.value)
      // The pre-sign-in cookie binds only the sign-in form: it can be planted on http (no __Host- prefix).
      const pre = request.cookies[preSessionCookie]
      if (Option.isNone(host) && options?.signInForm === true && pre !== undefined && preSessionValue.test(pre)) bound.push(pre)
      let ok = false
      for (const value of bound) if (constantTimeEqual(yield* csrfTokenFor(value), submitted)) ok = true
      return ok
    })

    const withSessionCookie = (response: HttpServerResponse.HttpServerResponse, secret: string) =>
      response.pipe(
        Response.setCookieUnsafe(sessionCookie, secret, { ...cookieOptions, maxAge: `${sessionLifetimeMs} millis` }),
        Response.setCookieUnsafe(preSessionCookie, "", { ...cookieOptions, maxAge: 0 })
      )

    const withoutSessionCookie = (response: HttpServerResponse.HttpServerResponse) =>
      Response.setCookieUnsafe(response, sessionCookie, "", { ...cookieOptions, maxAge: 0 })

    const preSession = Effect.fnUntraced(function* (request: HttpServerRequest.HttpServerRequest) {
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
      hostSignOutUrl: Option.map(host, (signIn) => signIn.signOutUrl),
      sessionCookie,
      preSessionCookie,
      sessionSecret,
      current,
      signInUrl,
      requirePerson,
      verifyCsrf,
      csrfTokenFor,
      withSessionCookie,
      withoutSessionCookie,
      withNotice,
      preSession
    })
  })
