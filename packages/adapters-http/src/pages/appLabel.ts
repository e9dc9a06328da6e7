// The one rendering of an app for every page (consent page, sign-in's "… is asking" line, Connected apps rows): the
// core's appIdentity (a recognised product by its own name, Verified; any other app Unverified with its self-given
// name in quotes and, for a metadata-document client, the host serving the document) as markup.
import { appIdentity, type AppIdentity, type Client } from "@adgate/core"
import { html, type Html } from "./layout.ts"

/** What a label needs; `documentHost` may be left out where the host is shown apart (or unknown). */
export type AppLabelInput = Pick<AppIdentity, "name" | "verified"> & { readonly documentHost?: string | null }

/**
 * A verified product's name with a Verified badge, or an Unverified app badge (a badge of its own, not part of the
 * name) before the self-given name in quotes, then the document's host when there is one.
 */
export const appLabel = (app: AppLabelInput): Html =>
  app.verified
    ? html`<strong>${app.name ?? "An app"}</strong> <span class="badge verified">Verified</span>`
    : html`<span class="badge unverified">Unverified app</span> <strong>“${app.name ?? "unnamed app"}”</strong>${
      app.documentHost === undefined || app.documentHost === null ? "" : html` described at <strong>${app.documentHost}</strong>`}`

/** A stored client's label: appIdentity, then appLabel. */
export const clientLabel = (client: Pick<Client, "name" | "recognised" | "kind" | "documentHost" | "productName">): Html =>
  appLabel(appIdentity(client))
