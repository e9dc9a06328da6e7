// GET /oauth/authorize, the consent page and POST /oauth/consent (spec §GET /oauth/authorize, §States: Consent page,
// §Authentication 9; RFC 6749 §4.1.1–4.1.2.1, RFC 9207; checklist A, B, M and decisions 5, 13, 163). The person
// signs in first; the core validates the request, resolves the client (fetching a metadata document here and only
// here), opens the page and decides; this file only reads the request and renders or redirects.
import { Clock, Effect, Option, Result } from "effect"
import { HttpRouter, HttpServerRequest, HttpServerResponse } from "effect/http"
import {
  authorizationResponseUrl,
  ClientStore,
  connectingRole,
  ConsentStore,
  constantTimeEqual,
  consentOptionsWithPlatforms,
  decideConsent,
  isMetadataDocumentClientId,
  type AuthorizeErrorPage,
  type AuthorizeErrorRedirect,
  Issuer,
  openConsentPage,
  parseScopes,
  Secrets,
  validateAuthorizationRequest,
  type Client,
  type ConsentAnswer,
  type ConsentDecision,
  type ConsentPage,
  ConsentPageId,
  WorkspaceId
} from "@adgate/core"
import { oauthPaths } from "../discovery/metadata.ts"
import { errorPageFor } from "../pages/errorPages.ts"
import { html, renderErrorPage, renderPage, seeOther } from "../pages/layout.ts"
import { People, type Person } from "../people/People.ts"
import { isCrossSite, RequestId } from "../security.ts"
import { clientLabel } from "../pages/appLabel.ts"
import { consentMomentMs, renderConsentPage } from "./consentView.ts"
import { type CorePorts, withCorePorts } from "./CorePorts.ts"
import { bodyText, mediaType, parseAuthorizationQuery, parseFormEncoded, rawQuery, type Params } from "./requestParams.ts"


const errorPage = (status: number, title: string, message: string, returnTo?: string) =>
  Effect.map(Effect.service(RequestId), (requestId) =>
    renderErrorPage({ status, title, message, requestId, ...(returnTo === undefined ? {} : { returnTo }) }))


type AuthorizeRefusal = AuthorizeErrorPage | AuthorizeErrorRedirect

const first = (params: Params, name: string): string | undefined => params.find(([key]) => key === name)?.[1]
const all = (params: Params, name: string): ReadonlyArray<string> => params.filter(([key]) => key === name).map(([, value]) => value)

/**
 * A workspace app of another of the person's workspaces: the app can connect only to its own workspace, so the page
 * offers that one (a same-site form post switches the session, then the same request opens the consent page there).
 * Switching is a POST with the session's CSRF token, never a side effect of following a link.
 */
const offerAppWorkspace = (person: Person, client: Client, workspaceName: string, returnTo: string, cancel: string) =>
  renderPage({
    title: "Switch workspace to connect this app",
    body: html`<section class="card">
<h1>${clientLabel(client)} belongs to ${workspaceName}</h1>
<p>This app was registered by the workspace <strong>${workspaceName}</strong> and can connect only to it. You are
working in <strong>${person.workspaces.find((w) => w.workspace.id === person.workspaceId)?.workspace.name ?? "another workspace"}</strong>.</p>
<form method="post" action="/session/workspace">
<input type="hidden" name="csrf_token" value="${person.csrfToken}">
<input type="hidden" name="workspace_id" value="${client.workspaceId ?? ""}">
<input type="hidden" name="return_to" value="${returnTo}">
<button type="submit">Switch to ${workspaceName} and continue</button>
<a class="button secondary" href="${cancel}">Cancel</a>
</form>
</section>`
  })

/** The link back to the app with an error: the person chooses to return (decision 13, checklist 163). */
const errorRedirect = (page: ConsentPage, issuer: string, error: string, description: string) =>
  authorizationResponseUrl(page.request.redirectUri, { error, error_description: description, state: page.request.state }, issuer)

export const AuthorizeRoutes = HttpRouter.use((router) =>
  Effect.gen(function* () {
    const withPorts = withCorePorts(yield* Effect.context<CorePorts>())
    const people = yield* People
    const { origin } = yield* Issuer

    // Errors of GET /oauth/authorize: an error page on our own site, or a redirect to the app (at once for a
    // workspace's own app or a recognised product; any other app's person first sees the error, decision 13).
    const refusalPage = (e: AuthorizeRefusal) => {
      if (e._tag === "AuthorizeErrorPage") return errorPageFor(e)
      const location = authorizationResponseUrl(e.redirectUri, { error: e.error, error_description: e.description, state: e.state }, origin)
      if (e.immediate) return Effect.succeed(seeOther(location))
      return errorPage(400, "This sign-in request is not valid", `The app sent a request adgate cannot accept: ${e.description}.`, location)
    }

    // The handlers are made once, with the router: docs/architecture.md, "Code on the request path".

    // The authorization request's consent page for a signed-in person: the request validated for them.
    const consentPageFor = Effect.fnUntraced(
      function* (request: HttpServerRequest.HttpServerRequest, query: Params, person: Person) {
        const validated = yield* validateAuthorizationRequest(query, { issuer: origin })
        const workspaceId = person.workspaceId
        if (workspaceId === null)
          return yield* errorPage(403, "No workspace", "You are not a member of any workspace, so there is nothing to connect an app to.")
        const client = validated.client
        if (client.kind === "workspace_app" && client.workspaceId !== workspaceId) {
          // Spec §Resources: OAuth client: only members of the registering workspace can authorize it; a member
          // working in another workspace is offered the app's own (a non-member is refused by openConsentPage).
          const home = person.workspaces.find((w) => w.workspace.id === client.workspaceId)
          if (home !== undefined) {
            const cancel = authorizationResponseUrl(
              validated.request.redirectUri,
              { error: "access_denied", error_description: "The person did not switch to the app's workspace", state: validated.request.state },
              origin
            )
            return offerAppWorkspace(person, client, home.workspace.name, request.url, cancel)
          }
        }
        const opened = yield* openConsentPage({ request: validated.request, client, userId: person.user.id, workspaceId })
        return renderConsentPage({ pageId: opened.page.id, csrfToken: opened.csrfToken, options: opened.options, person, workspaceId })
      },
      (effect) => effect.pipe(
        Effect.catchTags({
          AuthorizeErrorPage: refusalPage,
          AuthorizeErrorRedirect: refusalPage,
          NotAllowedToConnect: errorPageFor,
          DirectoryUnavailable: errorPageFor
        })
      )
    )

    // GET /oauth/authorize. The query is read raw (duplicates kept, checklist 4); an undecodable query has no trusted
    // redirect yet, so it is an error page (checklist 169). The client and redirect_uri are validated before the
    // person signs in (decision 13) — except a metadata-document client, whose document is fetched only for a
    // signed-in person, so that nobody can make the service fetch addresses anonymously (checklist I).
    const authorize = Effect.fnUntraced(function* (request: HttpServerRequest.HttpServerRequest) {
      const query = parseAuthorizationQuery(request.url)
      if (Result.isFailure(query)) return yield* errorPage(400, "This sign-in request is not valid", query.failure.description)
      const clientIds = all(query.success, "client_id")
      const metadataClient = clientIds.length === 1 && isMetadataDocumentClientId(clientIds[0] ?? "")
      if (!metadataClient) {
        const early = yield* validateAuthorizationRequest(query.success, { issuer: origin }).pipe(
          Effect.as(Option.none<HttpServerResponse.HttpServerResponse>()),
          Effect.catchTags({
            AuthorizeErrorPage: (e) => Effect.map(refusalPage(e), Option.some),
            AuthorizeErrorRedirect: (e) => Effect.map(refusalPage(e), Option.some)
          })
        )
        if (Option.isSome(early)) return early.value
      }
      return yield* people.requirePerson(request, (person) => consentPageFor(request, query.success, person))
    }, Effect.catchTag("StoreUnavailable", errorPageFor))

    // Shows the page again with the same id and token, e.g. when Allow access came before the page had been on
    // screen a moment (spec §Authentication 9). The token was checked against the page's hash first.
    const showAgain = Effect.fnUntraced(function* (page: ConsentPage, csrfToken: string, person: Person, notice: string, chosen?: ConsentDecision) {
      const clients = yield* ClientStore
      const client = yield* clients.find(page.request.clientId)
      if (Option.isNone(client)) return yield* errorPage(400, "This app is no longer available", "Start again from the app.")
      const { role, plan } = yield* connectingRole(page.workspaceId, page.userId)
      return renderConsentPage({
        pageId: page.id,
        csrfToken,
        options: yield* consentOptionsWithPlatforms(page.request, role, plan, client.value, page.workspaceId),
        person,
        workspaceId: page.workspaceId,
        notice,
        ...(chosen === undefined ? {} : { chosen })
      })
    })

    const tooSoon = Effect.fnUntraced(function* (pageId: ConsentPageId, csrfToken: string, person: Person, chosen: ConsentDecision) {
      const consents = yield* ConsentStore
      const secrets = yield* Secrets
      const found = yield* consents.find(pageId)
      if (Option.isNone(found) || found.value.status !== "open") return Option.none()
      const page = found.value
      const now = yield* Clock.currentTimeMillis
      if (now - page.openedAt >= consentMomentMs) return Option.none()
      // Only the person holding this page's token sees it again; anything else goes on to the core's refusal.
      if (!constantTimeEqual(yield* secrets.hash(csrfToken), page.csrfHash) || page.userId !== person.user.id) return Option.none()
      // Spec §Authentication 9: the page must have been on screen a moment. The person's choices are kept.
      const notice = "Allow access was selected less than a second after this page opened, so nothing was granted yet. " +
        "Your choices are kept below: check them, then select Allow access again."
      return Option.some(yield* showAgain(page, csrfToken, person, notice, chosen))
    })

    // POST /oauth/consent: the decision, posted once from our own page with its CSRF token (checklist 154–157).
    const decide = Effect.fnUntraced(function* (request: HttpServerRequest.HttpServerRequest, fields: Params) {
      const pageId = ConsentPageId.make(first(fields, "page") ?? "")
      const csrfToken = first(fields, "csrf_token") ?? ""
      const action = first(fields, "action")
      const person = yield* people.current(request)
      if (Option.isNone(person))
        return yield* errorPage(400, "You are signed out", "Your session ended before you decided. Start again from the app.")
      const workspaceId = person.value.workspaceId ?? WorkspaceId.make("")
      let answer: ConsentAnswer
      if (action === "allow") {
        const decision: ConsentDecision = {
          // Only known scope names; the core re-checks each against the page, the role and the plan.
          scopes: parseScopes(all(fields, "scope").join(" ")),
          // "All connected platforms" or the ticked families; the core refuses an empty or unconnected choice.
          platforms: first(fields, "platforms") === "ticked" ? all(fields, "platform") : "all",
          writeMode: first(fields, "write_mode") === "apply" ? "apply" : "wait"
        }
        const early = yield* tooSoon(pageId, csrfToken, person.value, decision)
        if (Option.isSome(early)) return early.value
        answer = { _tag: "Allow", decision }
      } else if (action === "cancel") {
        answer = { _tag: "Cancel" }
      } else {
        return yield* errorPage(400, "This form is not valid", "Choose Allow access or Cancel.")
      }
      const decided = yield* decideConsent({ pageId, csrfToken, userId: person.value.user.id, workspaceId, answer })
      // RFC 9700 §4.12: 303, never 307, so the form is not re-posted to the app.
      return seeOther(decided.redirectTo)
    }, (effect, _request, fields) => effect.pipe(
      Effect.catchTags({
        CsrfMismatch: errorPageFor,
        ConsentPageNotFound: errorPageFor,
        ConsentPageExpired: errorPageFor,
        ConsentAlreadyDecided: errorPageFor,
        // Not an error page: the flow restarts from the app (spec §States: Consent page).
        ConsentRestartRequired: () => Effect.flatMap(findPage(ConsentPageId.make(first(fields, "page") ?? "")), restart),
        InvalidConsentDecision: errorPageFor,
        NotAllowedToConnect: errorPageFor,
        DirectoryUnavailable: errorPageFor,
        PlatformUnavailable: errorPageFor,
        StoreUnavailable: errorPageFor
      })
    ))

    const consent = Effect.fnUntraced(function* (request: HttpServerRequest.HttpServerRequest) {
      if (isCrossSite(request, origin) || mediaType(request) !== "application/x-www-form-urlencoded")
        return yield* errorPage(403, "This form was not sent from this page", "Go back to the app and start again.")
      const text = yield* bodyText(request).pipe(Effect.option)
      const form = Option.isSome(text) ? parseFormEncoded(text.value) : Result.fail(null)
      if (Result.isFailure(form)) return yield* errorPage(400, "This form is not valid", "Go back to the app and start again.")
      return yield* decide(request, form.success)
    })

    /** The consent page a form or link names; none for an empty id. */
    const findPage = Effect.fnUntraced(function* (pageId: ConsentPageId) {
      if (pageId === "") return Option.none<ConsentPage>()
      return yield* (yield* ConsentStore).find(pageId)
    })

    // The workspace or account changed after the page opened: restart from the app (spec §States: Consent page).
    const restart = Effect.fnUntraced(function* (found: Option.Option<ConsentPage>) {
      const message = "You switched account or workspace after this page opened. For your safety, start connecting again from the app."
      if (Option.isNone(found)) return yield* errorPage(400, "Start again from the app", message)
      const back = errorRedirect(found.value, origin, "access_denied", "The person switched account or workspace; start the sign-in again")
      return yield* errorPage(400, "Start again from the app", message, back)
    })

    const restartFor = Effect.fnUntraced(function* (request: HttpServerRequest.HttpServerRequest, person: Person) {
      const query = parseFormEncoded(rawQuery(request.url))
      const found = yield* findPage(ConsentPageId.make(Result.isSuccess(query) ? (first(query.success, "page") ?? "") : ""))
      // Only the person the page was opened for gets the link back to the app.
      if (Option.isSome(found) && found.value.userId !== person.user.id) return yield* errorPage(400, "Start again from the app", "Start again from the app.")
      return yield* restart(found)
    })
    const restartPage = (request: HttpServerRequest.HttpServerRequest) =>
      people.requirePerson(request, (person) => restartFor(request, person)).pipe(Effect.catchTag("StoreUnavailable", errorPageFor))

    const provided = <A, E>(f: (request: HttpServerRequest.HttpServerRequest) => Effect.Effect<A, E, CorePorts>) =>
      (request: HttpServerRequest.HttpServerRequest) => withPorts(f(request))

    yield* router.add("GET", oauthPaths.authorize, provided(authorize))
    // Decision 5: the authorization endpoint takes GET only.
    yield* router.add("POST", oauthPaths.authorize, errorPage(405, "Method not allowed", "Open this address with GET.").pipe(
      Effect.map((response) => HttpServerResponse.setHeader(response, "allow", "GET"))))
    yield* router.add("POST", oauthPaths.consent, provided(consent))
    yield* router.add("GET", `${oauthPaths.consent}/restart`, provided(restartPage))
  })
)
