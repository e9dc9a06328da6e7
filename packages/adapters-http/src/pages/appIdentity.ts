// How a Connected apps row names its app (spec §GET /oauth/authorize "a recognised product is marked verified; any
// other is an Unverified app with its self-given name in quotes and, for a metadata document, the host serving it"):
// the one place the API & MCP pages decide whether a client is a recognised product, so that the source of that
// decision can change here alone.
import type { Client, ConnectedApp } from "@adgate/core"
import { appLabel } from "../oauth/consentView.ts"
import { html, type Html } from "./layout.ts"

export interface AppIdentity {
  /** The name to show: a recognised product's, else the client's self-given one (null when it gave none). */
  readonly name: string | null
  readonly verified: boolean
  /** The host serving a metadata-document client's document; null for any other client. */
  readonly documentHost: string | null
}

/** Whether and as what `client` is recognised: today the client record's `recognised` flag and its name. */
export const appIdentity = (client: Client): AppIdentity => ({
  name: client.name,
  verified: client.recognised,
  documentHost: client.kind === "metadata_document" ? client.documentHost : null
})

/** The app of a row as markup: the verified or Unverified label (consentView's appLabel), the document's host, or the API key's name. */
export const connectedAppLabel = (row: ConnectedApp): Html => {
  if (row.kind === "api_key") return html`<strong>${row.keyName ?? "API key"}</strong> <span class="badge neutral">API key</span>`
  if (row.client === null) return appLabel({ name: row.clientId, verified: false })
  const identity = appIdentity(row.client)
  return html`${appLabel(identity)}${identity.verified || identity.documentHost === null
    ? ""
    : html` <span class="muted">described at <strong>${identity.documentHost}</strong></span>`}`
}

/** The app of a row in plain text (a chart's legend, a page title): `Claude`, `“my tool” (unverified)`, `Nightly (API key)`. */
export const connectedAppName = (row: ConnectedApp): string => {
  if (row.kind === "api_key") return `${row.keyName ?? "API key"} (API key)`
  const identity = row.client === null ? { name: row.clientId, verified: false } : appIdentity(row.client)
  return identity.verified ? (identity.name ?? "An app") : `“${identity.name ?? "unnamed app"}” (unverified)`
}
