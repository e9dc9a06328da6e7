// The host's ports for hosts that do not use Effect: plain objects of async functions, turned into adgate's port
// layers here (docs/embedding.md, The host's ports). A rejected promise is the port's "cannot answer now": a platform
// that throws is PlatformUnavailable (503, the call is not made), a sign-in check that throws is SignInUnavailable
// (503), a mail that throws stays in the outbox.
import { Effect, Layer, Option } from "effect"
import {
  type Account, MailDelivery, type MailMessage, MailUndelivered, PlatformUnavailable, Platforms, type PlatformAnswer,
  type PlatformFamily, type ProposedChange, SignIn, type SignInRequest, SignInUnavailable, type Tool, type ToolCall, UserId
} from "@adgate/core"

/** The host's platforms: its tool catalogue, its workspaces' connected accounts, what a write would change, the call. */
export interface HostPlatforms {
  /** Every platform family the host offers (`id` is the `<family>` of each tool name `<family>__<tool>`). */
  readonly families: ReadonlyArray<PlatformFamily>
  /** Every tool of every family, in a stable order. */
  readonly tools: ReadonlyArray<Tool>
  /** The workspace's connected accounts (of `family` only, when given). */
  readonly accounts: (workspaceId: string, family?: string) => Promise<ReadonlyArray<Account>>
  /** What a write would change, read before it runs (guardrails, the approval page). */
  readonly preview: (call: ToolCall) => Promise<ProposedChange>
  /**
   * Runs the call with the workspace's credential. A platform that already applied a call with the same
   * `idempotencyToken` must answer its first answer again and change nothing (an approved write is retried after a
   * crash with the same token).
   */
  readonly execute: (call: ToolCall) => Promise<PlatformAnswer>
}

/** The host's own sign-in: who is signed in on a request, by the host's session cookie. */
export interface HostSignInOptions {
  /**
   * The person signed in on this request (their id in the directory, and a value unique and secret to the session
   * that adgate binds its CSRF tokens to), or null when nobody is. Throw only when the host cannot tell now.
   */
  readonly current: (request: SignInRequest) => Promise<{ readonly userId: string; readonly sessionKey: string } | null>
  /** The host's sign-in page, coming back to `returnTo` (an absolute URL on adgate's origin) once signed in. */
  readonly signInUrl: (returnTo: string) => string
  /** Where adgate's Sign out button sends the person. */
  readonly signOutUrl: string
}

/** The host's mail delivery: resolves once the mail is accepted; a rejection leaves it in the outbox for later. */
export interface HostMail {
  readonly send: (mail: MailMessage) => Promise<void>
}

const reason = (e: unknown) => (e instanceof Error ? e.name : typeof e)

export const platformsLayer = (host: HostPlatforms): Layer.Layer<Platforms> => {
  const call = <A>(platform: string, f: () => Promise<A>) =>
    // The host's error text is not passed on: it may quote a credential or an upstream URL.
    Effect.tryPromise({ try: f, catch: (e) => new PlatformUnavailable({ platform, message: `the platform did not answer (${reason(e)})` }) })
  return Layer.succeed(Platforms, Platforms.of({
    families: host.families,
    tools: host.tools,
    accounts: (workspaceId, family) => call(family ?? "accounts", () => host.accounts(workspaceId, family)),
    preview: (c) => call(c.tool.family, () => host.preview(c)),
    execute: (c) => call(c.tool.family, () => host.execute(c))
  }))
}

export const signInLayer = (host: HostSignInOptions): Layer.Layer<SignIn> =>
  Layer.succeed(SignIn, SignIn.of({
    current: (request) =>
      Effect.tryPromise({
        try: () => host.current(request),
        catch: (e) => new SignInUnavailable({ message: `the host could not tell who is signed in (${reason(e)})` })
      }).pipe(Effect.map((found) =>
        found === null || found.sessionKey === "" ? Option.none() : Option.some({ userId: UserId.make(found.userId), sessionKey: found.sessionKey }))),
    signInUrl: host.signInUrl,
    signOutUrl: host.signOutUrl
  }))

export const mailDeliveryLayer = (host: HostMail): Layer.Layer<MailDelivery> =>
  Layer.succeed(MailDelivery, MailDelivery.of({
    deliver: (mail) =>
      Effect.tryPromise({ try: () => host.send(mail), catch: (e) => new MailUndelivered({ message: `the host did not accept the mail (${reason(e)})` }) })
  }))
