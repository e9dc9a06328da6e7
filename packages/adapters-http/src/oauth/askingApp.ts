// Which app is asking, for the sign-in page reached from an authorization request (spec §GET /oauth/authorize: the
// person sees who asks): the registered client's name and label, or the host of a metadata document. Nothing is
// fetched for an anonymous person (checklist I), so a metadata-document client is named by its URL's host only.
import { Effect, Option } from "effect"
import { ClientId, type ClientStore, isMetadataDocumentClientId } from "@adgate/core"
import { oauthPaths } from "../discovery/metadata.ts"
import { html, type Html } from "../pages/layout.ts"
import { appLabel, clientLabel } from "../pages/appLabel.ts"

/** The "… is asking" line for a same-site `returnTo`, when it is an authorization request naming one known client. */
export const askingApp = (clients: ClientStore["Service"], returnTo: string, origin: string): Effect.Effect<Option.Option<Html>> =>
  askingLine(clients, returnTo, origin).pipe(
    // Only a courtesy: a store that cannot answer leaves the page without the line.
    Effect.catch(() => Effect.succeed(Option.none<Html>()))
  )

/** askingApp's line. */
const askingLine = Effect.fnUntraced(function* (clients: ClientStore["Service"], returnTo: string, origin: string) {
  const url = new URL(returnTo, origin)
  if (url.pathname !== oauthPaths.authorize) return Option.none()
  const ids = url.searchParams.getAll("client_id")
  const clientId = ids[0]
  if (ids.length !== 1 || clientId === undefined) return Option.none()
  if (isMetadataDocumentClientId(clientId)) {
    const host = URL.canParse(clientId) ? new URL(clientId).host : null
    if (host === null) return Option.none()
    // A document read before (at someone's consent page) may already be a recognised product's; nothing is fetched.
    const cached = yield* clients.find(ClientId.make(clientId))
    if (Option.isSome(cached) && cached.value.removedAt === null && cached.value.recognised)
      return Option.some(html`<p class="asking">${clientLabel(cached.value)} is asking to connect. Sign in to see what it asks for.</p>`)
    return Option.some(html`<p class="asking">${appLabel({ name: null, verified: false, documentHost: host })} is asking to connect. Sign in to see what it asks for.</p>`)
  }
  const found = yield* clients.find(ClientId.make(clientId))
  if (Option.isNone(found) || found.value.removedAt !== null) return Option.none()
  const client = found.value
  return Option.some(html`<p class="asking">${clientLabel(client)} is asking to connect. Sign in to see what it asks for.</p>`)
})
