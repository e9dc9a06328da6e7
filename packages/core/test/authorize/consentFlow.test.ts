import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer, Logger, Option } from "effect"
import { TestClock } from "effect/testing"
import {
  CodeStore,
  ConsentStore,
  Directory,
  decideConsent,
  EventOutbox,
  openConsentPage,
  registerClient,
  registerWorkspaceApp,
  Secrets,
  type AuthorizationRequest,
  type Client,
  type ConsentAnswer,
  type ConsentDecision,
  type Scope,
  WorkspaceId,
  UserId,
  ConsentPageId
} from "@adgate/core"
import { ConsentStoreMemory } from "@adgate/core/testing"
import { ISSUER, seedWorkspace, worldLayer } from "../clients/TestWorld.ts"
import { audited } from "../support/audited.ts"

const C = "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"
const all: ReadonlyArray<Scope> = ["tasks:read", "tasks:write", "accounts:read", "tools:read", "tools:write", "tools:raw"]
const requestFor = (client: Client, scopes: ReadonlyArray<Scope> = all): AuthorizationRequest => ({
  clientId: client.clientId, redirectUri: client.redirectUris[0] ?? "", redirectUriSent: true, scopes, codeChallenge: C, state: "s1", surface: "both"
})
const allow = (decision: Partial<ConsentDecision> = {}): ConsentAnswer =>
  ({ _tag: "Allow", decision: { scopes: ["tasks:read", "tools:read"], platforms: "all", writeMode: "wait", ...decision } })

/** An error's tag and reason, for comparing refusals. */
const why = (e: { readonly _tag: string }) => [e._tag, "reason" in e ? e.reason : null]

/** The memory consent store, yielding after each read so that concurrent posts really interleave. */
const InterleavingConsentStore = Layer.effect(ConsentStore, Effect.gen(function* () {
  const inner = yield* ConsentStore
  return ConsentStore.of({ ...inner, find: (id) => Effect.tap(inner.find(id), () => Effect.yieldNow) })
})).pipe(Layer.provide(ConsentStoreMemory))

const setup = Effect.gen(function* () {
  yield* seedWorkspace(WorkspaceId.make("ws_1"), "paid", { admin: "admin", editor: "editor", viewer: "viewer" })
  yield* seedWorkspace(WorkspaceId.make("ws_2"), "paid", { admin: "admin", other: "admin" })
  const { client } = yield* registerClient({ body: { redirect_uris: ["https://app.example/cb?tenant=1"], client_name: "App" }, remoteAddress: "a", serviceOrigin: ISSUER })
  return client
})
/** Opens a page for `userId` in ws_1 and decides it with `answer`. */
const openAndDecide = (client: Client, answer: ConsentAnswer, userId = UserId.make("admin"), scopes: ReadonlyArray<Scope> = all) =>
  Effect.gen(function* () {
    const opened = yield* openConsentPage({ request: requestFor(client, scopes), client, userId, workspaceId: WorkspaceId.make("ws_1") })
    const decided = yield* decideConsent({ pageId: opened.page.id, csrfToken: opened.csrfToken, userId, workspaceId: WorkspaceId.make("ws_1"), answer })
    return { opened, redirect: new URL(decided.redirectTo) }
  })
const codeOf = (redirect: URL) =>
  Effect.gen(function* () {
    const code = redirect.searchParams.get("code") ?? ""
    return Option.getOrThrow(yield* (yield* CodeStore).findByHash(yield* (yield* Secrets).hash(code)))
  })

describe("opening the consent page (spec §GET /oauth/authorize, §Resources: Scopes)", () => {
  it.effect("an admin or editor opens a page valid 10 minutes, with a CSRF token of which only the hash is stored", () =>
    Effect.gen(function* () {
      const client = yield* setup
      yield* TestClock.adjust("5 seconds")
      const { page, csrfToken, options } = yield* openConsentPage({ request: requestFor(client), client, userId: UserId.make("editor"), workspaceId: WorkspaceId.make("ws_1") })
      assert.match(page.id, /^cp_/)
      assert.match(csrfToken, /^csrf_/)
      assert.strictEqual(page.csrfHash, yield* (yield* Secrets).hash(csrfToken))
      assert.deepStrictEqual([page.openedAt, page.expiresAt, page.status, page.userId, page.workspaceId], [5000, 5000 + 600_000, "open", "editor", WorkspaceId.make("ws_1")])
      assert.deepStrictEqual(Option.getOrThrow(yield* (yield* ConsentStore).find(page.id)), page)
      assert.notInclude(JSON.stringify(page), csrfToken)
      assert.deepStrictEqual(options.scopes.filter((s) => !s.grantable).map((s) => s.scope), ["tools:read", "tools:write", "tools:raw"])
      // A creation without an event: neither the registration nor the page leaves anything in the outbox.
      const outbox = yield* EventOutbox
      for (const reader of outbox.readers) assert.deepStrictEqual(yield* outbox.claim(reader.name, 100), [], reader.name)
    }).pipe(Effect.provide(worldLayer())))

  it.effect("not a member, or a role that cannot connect → NotAllowedToConnect", () =>
    Effect.gen(function* () {
      const client = yield* setup
      const open = (userId: UserId, workspaceId = WorkspaceId.make("ws_1")) => Effect.flip(openConsentPage({ request: requestFor(client), client, userId, workspaceId }))
      assert.deepStrictEqual(why(yield* open(UserId.make("stranger"))), ["NotAllowedToConnect", "not_a_member"])
      assert.deepStrictEqual(why(yield* open(UserId.make("viewer"))), ["NotAllowedToConnect", "role_cannot_connect"])
      assert.deepStrictEqual(why(yield* open(UserId.make("admin"), WorkspaceId.make("ws_nope"))), ["NotAllowedToConnect", "unknown_workspace"])
    }).pipe(Effect.provide(worldLayer())))

  it.effect("only members of the registering workspace may authorize its app (spec §Resources: OAuth client)", () =>
    Effect.gen(function* () {
      yield* setup
      const { client } = yield* registerWorkspaceApp({ workspaceId: WorkspaceId.make("ws_1"), actorId: UserId.make("admin"), name: "Own", redirectUris: ["https://own.example/cb"], type: "public" })
      const error = yield* Effect.flip(openConsentPage({ request: requestFor(client), client, userId: UserId.make("other"), workspaceId: WorkspaceId.make("ws_2") }))
      assert.deepStrictEqual(why(error), ["NotAllowedToConnect", "app_of_another_workspace"])
      // The admin of both may authorize it only into its own workspace.
      assert.strictEqual((yield* Effect.flip(openConsentPage({ request: requestFor(client), client, userId: UserId.make("admin"), workspaceId: WorkspaceId.make("ws_2") })))._tag, "NotAllowedToConnect")
      yield* openConsentPage({ request: requestFor(client), client, userId: UserId.make("admin"), workspaceId: WorkspaceId.make("ws_1") })
    }).pipe(Effect.provide(worldLayer())))
})

describe("deciding on the consent page (spec §GET /oauth/authorize after the person decides; RFC 6749 §4.1.2, RFC 9207)", () => {
  it.effect("Allow access → redirect with code, state and iss; the code is stored by hash, issued, 10 minutes, carrying the grant", () =>
    Effect.gen(function* () {
      const client = yield* setup
      yield* TestClock.adjust("1 minute")
      const { opened, redirect } = yield* openAndDecide(client, allow({ scopes: ["tools:write", "tasks:read"], platforms: ["ads", "shop", "ads"], writeMode: "apply" }))
      assert.strictEqual(`${redirect.origin}${redirect.pathname}`, "https://app.example/cb")
      assert.deepStrictEqual([...redirect.searchParams.keys()], ["tenant", "code", "state", "iss"])
      assert.match(redirect.searchParams.get("code") ?? "", /^apo_ac_[A-Za-z0-9_-]{43}$/)
      assert.strictEqual(redirect.searchParams.get("state"), "s1")
      assert.strictEqual(redirect.searchParams.get("iss"), ISSUER)
      const code = yield* codeOf(redirect)
      assert.deepStrictEqual({ ...code, hash: "" }, {
        hash: "", version: 1, clientId: client.clientId, redirectUri: "https://app.example/cb?tenant=1", redirectUriSent: true, codeChallenge: C,
        userId: UserId.make("admin"), workspaceId: WorkspaceId.make("ws_1"), scopes: ["tasks:read", "tools:write"], surface: "both", platforms: ["ads", "shop"],
        writeMode: "apply", issuedAt: 60_000, expiresAt: 60_000 + 600_000, status: "issued", failedAttempts: 0, connectionId: null
      })
      assert.notInclude(code.hash, "apo_ac_")
      assert.strictEqual(Option.getOrThrow(yield* (yield* ConsentStore).find(opened.page.id)).status, "approved")
    }).pipe(Effect.provide(worldLayer())))

  it.effect("without a change-making scope the write setting stays Wait for approval", () =>
    Effect.gen(function* () {
      const client = yield* setup
      const { redirect } = yield* openAndDecide(client, allow({ scopes: ["tools:read"], writeMode: "apply" }))
      assert.strictEqual((yield* codeOf(redirect)).writeMode, "wait")
    }).pipe(Effect.provide(worldLayer())))

  it.effect("Cancel → access_denied with error_description, state and iss, no code; audit entry connection.declined (checklist 14, decision 163)", () =>
    Effect.gen(function* () {
      const client = yield* setup
      const { opened, redirect } = yield* openAndDecide(client, { _tag: "Cancel" })
      assert.strictEqual(`${redirect.origin}${redirect.pathname}`, "https://app.example/cb")
      assert.deepStrictEqual([...redirect.searchParams.entries()], [
        ["tenant", "1"], ["error", "access_denied"], ["error_description", "The person declined access"], ["state", "s1"], ["iss", ISSUER]
      ])
      assert.strictEqual(Option.getOrThrow(yield* (yield* ConsentStore).find(opened.page.id)).status, "declined")
      const entries = yield* audited(WorkspaceId.make("ws_1"))
      assert.strictEqual(entries.length, 1)
      assert.deepStrictEqual({ ...entries[0], id: "" }, {
        id: "", workspaceId: WorkspaceId.make("ws_1"), at: 0, actorId: UserId.make("admin"), action: "connection.declined", clientId: client.clientId, connectionId: null,
        detail: { scopesAsked: all.join(" "), surface: "both", reason: "cancelled" }
      })
      assert.match(entries[0]?.id ?? "", /^aud_/)
    }).pipe(Effect.provide(worldLayer())))

  it.effect("approving no permission is answered access_denied (spec)", () =>
    Effect.gen(function* () {
      const client = yield* setup
      const { redirect } = yield* openAndDecide(client, allow({ scopes: [] }))
      assert.strictEqual(redirect.searchParams.get("error"), "access_denied")
      assert.strictEqual(redirect.searchParams.get("error_description"), "No permission was approved")
      assert.isNull(redirect.searchParams.get("code"))
      assert.strictEqual((yield* audited(WorkspaceId.make("ws_1")))[0]?.detail["reason"], "no_permission_approved")
    }).pipe(Effect.provide(worldLayer())))

  it.effect("a decision is re-checked: only asked scopes, grantable by the current role and plan; apply only for an admin", () =>
    Effect.gen(function* () {
      const client = yield* setup
      const refused = (answer: ConsentAnswer, userId: UserId, scopes: ReadonlyArray<Scope> = all) =>
        Effect.map(Effect.flip(openAndDecide(client, answer, userId, scopes)), (e) => e._tag)
      assert.strictEqual(yield* refused(allow({ scopes: ["tools:raw"] }), UserId.make("admin"), ["tasks:read"]), "InvalidConsentDecision")
      assert.strictEqual(yield* refused(allow({ scopes: ["tools:read"] }), UserId.make("editor")), "InvalidConsentDecision")
      assert.strictEqual(yield* refused(allow({ scopes: ["tasks:write"], writeMode: "apply" }), UserId.make("editor")), "InvalidConsentDecision")
      assert.strictEqual(yield* refused(allow({ scopes: ["tools:write"], platforms: [""] }), UserId.make("admin")), "InvalidConsentDecision")
      // Ticked platforms: at least one, each a family with a connected account in the workspace (ws_1: ads, shop).
      assert.strictEqual(yield* refused(allow({ scopes: ["tools:read"], platforms: [] }), UserId.make("admin")), "InvalidConsentDecision")
      assert.strictEqual(yield* refused(allow({ scopes: ["tools:read"], platforms: ["ads", "meta"] }), UserId.make("admin")), "InvalidConsentDecision")
      // On a free plan even an admin cannot grant platform tools.
      yield* (yield* Directory).setPlan(WorkspaceId.make("ws_1"), "free")
      assert.strictEqual(yield* refused(allow({ scopes: ["tools:read"] }), UserId.make("admin")), "InvalidConsentDecision")
      const { redirect } = yield* openAndDecide(client, allow({ scopes: ["tasks:read", "accounts:read"] }), UserId.make("editor"))
      assert.deepStrictEqual((yield* codeOf(redirect)).scopes, ["tasks:read", "accounts:read"])
    }).pipe(Effect.provide(worldLayer())))

  it.effect("a refused decision leaves the page open; a role lost since opening → NotAllowedToConnect", () =>
    Effect.gen(function* () {
      const client = yield* setup
      const opened = yield* openConsentPage({ request: requestFor(client), client, userId: UserId.make("editor"), workspaceId: WorkspaceId.make("ws_1") })
      const post = (answer: ConsentAnswer) => decideConsent({ pageId: opened.page.id, csrfToken: opened.csrfToken, userId: UserId.make("editor"), workspaceId: WorkspaceId.make("ws_1"), answer })
      assert.strictEqual((yield* Effect.flip(post(allow({ scopes: ["tools:read"] }))))._tag, "InvalidConsentDecision")
      yield* (yield* Directory).setRole(WorkspaceId.make("ws_1"), UserId.make("editor"), Option.some("viewer"))
      assert.deepStrictEqual(why(yield* Effect.flip(post(allow({ scopes: ["tasks:read"] })))), ["NotAllowedToConnect", "role_cannot_connect"])
      assert.strictEqual(Option.getOrThrow(yield* (yield* ConsentStore).find(opened.page.id)).status, "open")
      // Cancel needs no role: the person may always say no.
      const cancelled = new URL((yield* post({ _tag: "Cancel" })).redirectTo)
      assert.strictEqual(cancelled.searchParams.get("error"), "access_denied")
    }).pipe(Effect.provide(worldLayer())))

  it.effect("a second post of a decided page → ConsentAlreadyDecided and no second code (checklist 161)", () =>
    Effect.gen(function* () {
      const client = yield* setup
      const opened = yield* openConsentPage({ request: requestFor(client), client, userId: UserId.make("admin"), workspaceId: WorkspaceId.make("ws_1") })
      const post = (answer: ConsentAnswer) => decideConsent({ pageId: opened.page.id, csrfToken: opened.csrfToken, userId: UserId.make("admin"), workspaceId: WorkspaceId.make("ws_1"), answer })
      yield* post(allow())
      assert.strictEqual((yield* Effect.flip(post(allow())))._tag, "ConsentAlreadyDecided")
      assert.strictEqual((yield* Effect.flip(post({ _tag: "Cancel" })))._tag, "ConsentAlreadyDecided")
    }).pipe(Effect.provide(worldLayer())))

  it.effect("two concurrent posts of one page issue at most one code (compare-and-set)", () =>
    Effect.gen(function* () {
      const client = yield* setup
      const opened = yield* openConsentPage({ request: requestFor(client), client, userId: UserId.make("admin"), workspaceId: WorkspaceId.make("ws_1") })
      const post = decideConsent({ pageId: opened.page.id, csrfToken: opened.csrfToken, userId: UserId.make("admin"), workspaceId: WorkspaceId.make("ws_1"), answer: allow() })
      const results = yield* Effect.all(Array.from({ length: 5 }, () => Effect.result(post)), { concurrency: "unbounded" })
      const won = results.filter((r) => r._tag === "Success")
      assert.strictEqual(won.length, 1)
      for (const r of results) if (r._tag === "Failure") assert.strictEqual(r.failure._tag, "ConsentAlreadyDecided")
    }).pipe(Effect.provide(InterleavingConsentStore), Effect.provide(worldLayer())))

  it.effect("10 minutes after opening → ConsentPageExpired, no code (spec §Limits)", () =>
    Effect.gen(function* () {
      const client = yield* setup
      const opened = yield* openConsentPage({ request: requestFor(client), client, userId: UserId.make("admin"), workspaceId: WorkspaceId.make("ws_1") })
      yield* TestClock.adjust("10 minutes")
      const error = yield* Effect.flip(decideConsent({ pageId: opened.page.id, csrfToken: opened.csrfToken, userId: UserId.make("admin"), workspaceId: WorkspaceId.make("ws_1"), answer: allow() }))
      assert.strictEqual(error._tag, "ConsentPageExpired")
      assert.strictEqual(Option.getOrThrow(yield* (yield* ConsentStore).find(opened.page.id)).status, "open")
    }).pipe(Effect.provide(worldLayer())))

  it.effect("a wrong CSRF token → CsrfMismatch; another person or workspace → ConsentRestartRequired; unknown page → ConsentPageNotFound", () =>
    Effect.gen(function* () {
      const client = yield* setup
      const opened = yield* openConsentPage({ request: requestFor(client), client, userId: UserId.make("admin"), workspaceId: WorkspaceId.make("ws_1") })
      const post = (csrfToken: string, userId: UserId, workspaceId: WorkspaceId, pageId = opened.page.id) =>
        Effect.map(Effect.flip(decideConsent({ pageId, csrfToken, userId, workspaceId, answer: allow() })), (e) => e._tag)
      assert.strictEqual(yield* post("csrf_forged", UserId.make("admin"), WorkspaceId.make("ws_1")), "CsrfMismatch")
      assert.strictEqual(yield* post("", UserId.make("admin"), WorkspaceId.make("ws_1")), "CsrfMismatch")
      assert.strictEqual(yield* post(opened.csrfToken, UserId.make("editor"), WorkspaceId.make("ws_1")), "ConsentRestartRequired")
      assert.strictEqual(yield* post(opened.csrfToken, UserId.make("admin"), WorkspaceId.make("ws_2")), "ConsentRestartRequired")
      assert.strictEqual(yield* post(opened.csrfToken, UserId.make("admin"), WorkspaceId.make("ws_1"), ConsentPageId.make("cp_nope")), "ConsentPageNotFound")
      // None of these decided the page: the right post still works.
      yield* decideConsent({ pageId: opened.page.id, csrfToken: opened.csrfToken, userId: UserId.make("admin"), workspaceId: WorkspaceId.make("ws_1"), answer: allow() })
    }).pipe(Effect.provide(worldLayer())))
})

describe("a repeated PKCE challenge (checklist decision 47, RFC 9700 §2.1.1)", () => {
  it.effect("is logged as a warning naming the client, and the code is still issued", () =>
    Effect.gen(function* () {
      const client = yield* setup
      const lines: Array<string> = []
      const capture = Logger.layer([Logger.map(Logger.formatLogFmt, (line) => { lines.push(line) })])
      const first = yield* openAndDecide(client, allow()).pipe(Effect.provide(capture))
      assert.isFalse(lines.some((l) => l.includes("PKCE challenge")))
      const again = yield* openAndDecide(client, allow()).pipe(Effect.provide(capture))
      assert.isNotNull(first.redirect.searchParams.get("code"))
      assert.isNotNull(again.redirect.searchParams.get("code"))
      const warnings = lines.filter((l) => l.includes("PKCE challenge"))
      assert.strictEqual(warnings.length, 1)
      assert.include(warnings[0], "level=WARN")
      assert.include(warnings[0], client.clientId)
    }).pipe(Effect.provide(worldLayer())))
})
