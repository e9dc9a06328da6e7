// What the request's log line and metrics say about who acted, filled in while the request is served: the HTTP
// adapter creates one record per request; the bearer check writes the credential's id (a connection or key id,
// never the secret). Outside a request there is none, and nothing is written.
import { Context } from "effect"

export interface RequestNotes {
  /** The acting credential: a connection id (OAuth token) or an API key id. */
  credentialId: string | undefined
  /** The client address as the rate limiters count it (TRUSTED_PROXIES resolved). */
  clientAddress: string | undefined
  /** The route pattern that answered (`/api/v1/workspaces/:workspaceId/tools`), never the raw path. */
  route: string | undefined
}

export const RequestNotes = Context.Reference<RequestNotes | undefined>("core/RequestNotes", { defaultValue: () => undefined })

/** A fresh, empty record for one request. */
export const emptyRequestNotes = (): RequestNotes => ({ credentialId: undefined, clientAddress: undefined, route: undefined })
