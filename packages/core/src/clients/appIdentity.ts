// How every page and message names an app (spec §GET /oauth/authorize "The consent page shows"; issue: "a verified row
// shows the product's name, not the client's self-given one"): a recognised product by its own name with a Verified
// label; any other app as Unverified with its self-given name in quotes and, for a metadata-document client, the host
// serving the document. The consent page, the sign-in page, Connected apps and the mail all start from this.
import type { Client } from "./Client.ts"

export interface AppIdentity {
  /** The product's name when verified; otherwise the self-given name (null when it gave none). */
  readonly name: string | null
  readonly verified: boolean
  /** For an unverified metadata-document client, the host serving its document; otherwise null. */
  readonly documentHost: string | null
}

export const appIdentity = (client: Pick<Client, "name" | "recognised" | "kind" | "documentHost" | "productName">): AppIdentity => {
  // A recognised row without a product name (one written before products had names) keeps its own, still verified.
  if (client.recognised) return { name: client.productName ?? client.name, verified: true, documentHost: null }
  return { name: client.name, verified: false, documentHost: client.kind === "metadata_document" ? client.documentHost : null }
}

/** The identity as plain text (mail, logs): `Claude`, or `"Helper" (unverified app, described at cimd.example)`. */
export const appLabelText = (app: AppIdentity, fallback = "unnamed app"): string =>
  app.verified
    ? app.name ?? fallback
    : `"${app.name ?? fallback}" (unverified app${app.documentHost === null ? "" : `, described at ${app.documentHost}`})`
