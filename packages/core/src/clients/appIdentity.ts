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

/**
 * A name someone else chose (an app's self-given name, a person's name) on one line: control characters (a line
 * break would let it write lines of its own into a mail, a header or a terminal) become spaces, and it is cut at 80
 * characters.
 */
export const oneLine = (text: string): string => {
  const line = flatText(text)
  return line.length > 80 ? `${line.slice(0, 79)}…` : line
}

/** Text on one line, whatever its length (a change's summary may name several campaigns). */
export const flatText = (text: string): string =>
  text.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]+/g, " ").replace(/\s+/g, " ").trim()

/**
 * The identity as plain text, the one wording of every text surface (mail, CLI, a chart's legend), in the pages'
 * order (their badge first, docs/service.md): `Claude (verified)`, or `Unverified app "Helper" (described at
 * cimd.example)`. Each part is on one line and cut (oneLine), so a long name cannot push the "Unverified app" off a
 * subject line, nor write a line of its own.
 */
export const appLabelText = (app: AppIdentity, fallback = "unnamed app"): string => {
  if (app.verified) return `${oneLine(app.name ?? fallback)} (verified)`
  const described = app.documentHost === null ? "" : ` (described at ${oneLine(app.documentHost)})`
  return `Unverified app "${oneLine(app.name ?? fallback)}"${described}`
}
