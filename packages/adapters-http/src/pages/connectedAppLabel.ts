// How a Connected apps row names its app: a connection by its client through the one identity every page uses (core
// clients/appIdentity.ts: a recognised product by its own name, Verified; any other app Unverified with its
// self-given name in quotes and, for a metadata-document client, the host serving the document; rendered by
// pages/appLabel.ts), an API key by its name.
import { appIdentity, appLabelText, type ConnectedApp } from "@adgate/core"
import { appLabel, clientLabel } from "./appLabel.ts"
import { html, type Html } from "./layout.ts"

/** The app of a row as markup; a connection whose client record is gone shows its client id, unverified. */
export const connectedAppLabel = (row: ConnectedApp): Html => {
  if (row.kind === "api_key") return html`<strong>${row.keyName ?? "API key"}</strong> <span class="badge neutral">API key</span>`
  return row.client === null ? appLabel({ name: row.clientId, verified: false }) : clientLabel(row.client)
}

/** The app of a row in plain text (a chart's legend and description): `Claude (verified)`, `Unverified app "my tool"`, `Nightly (API key)`. */
export const connectedAppName = (row: ConnectedApp): string => {
  if (row.kind === "api_key") return `${row.keyName ?? "API key"} (API key)`
  return appLabelText(row.client === null ? { name: row.clientId, verified: false, documentHost: null } : appIdentity(row.client))
}
