// The one table of error pages (architecture §Errors): core error tag → status, title and message of the page a
// person sees (spec §GET /oauth/authorize "error page"; checklist M). Core errors carry reasons only; the page's
// words and status live here. A failure without a row, or a row without a failure, does not compile.
import { Effect } from "effect"
import type {
  AuthorizeErrorPage, ConsentAlreadyDecided, ConsentPageExpired, ConsentPageNotFound, CsrfMismatch, DirectoryUnavailable,
  InvalidConsentDecision, NotAllowedToConnect, PlatformUnavailable, StoreUnavailable
} from "@adgate/core"
import { RequestId } from "../security.ts"
import { renderErrorPage } from "./layout.ts"

export type PageFailure =
  | AuthorizeErrorPage | CsrfMismatch | ConsentPageNotFound | ConsentPageExpired | ConsentAlreadyDecided | InvalidConsentDecision
  | NotAllowedToConnect | DirectoryUnavailable | PlatformUnavailable | StoreUnavailable

interface PageRow {
  readonly status: number
  readonly title: string
  readonly message: string
}

const notAllowedMessages: Readonly<Record<NotAllowedToConnect["reason"], string>> = {
  not_a_member: "You are not a member of this workspace.",
  role_cannot_connect: "Your role in this workspace cannot connect apps. Ask a workspace admin or editor.",
  app_of_another_workspace: "This app belongs to another workspace: only that workspace's members can connect it.",
  unknown_workspace: "This workspace does not exist."
}

// Fail closed (checklist O 173): nothing was decided; the person tries again.
const unavailable = (): PageRow => ({
  status: 503, title: "Temporarily unavailable", message: "The service could not answer just now. Please try again in a moment."
})

export const pageErrorTable = {
  AuthorizeErrorPage: (e) => ({ status: 400, title: "This sign-in request is not valid", message: e.description }),
  // RFC 6749 §10.12: a forged post learns nothing about the page.
  CsrfMismatch: () => ({ status: 403, title: "This form was not sent from this page", message: "Go back to the app and start again." }),
  ConsentPageNotFound: () => ({ status: 400, title: "This page is not valid", message: "Start again from the app." }),
  ConsentPageExpired: () => ({ status: 400, title: "This page has expired", message: "A consent page is valid for 10 minutes. Start again from the app." }),
  ConsentAlreadyDecided: () => ({ status: 400, title: "Already answered", message: "You already answered this request. Start again from the app if you need to." }),
  InvalidConsentDecision: (e) => ({ status: 400, title: "This choice is not possible", message: `${e.description}. Start again from the app.` }),
  NotAllowedToConnect: (e) => ({ status: 403, title: "You cannot connect this app", message: notAllowedMessages[e.reason] }),
  DirectoryUnavailable: unavailable,
  // The ticked platforms could not be checked against the connected ones (consent page).
  PlatformUnavailable: unavailable,
  StoreUnavailable: unavailable
} as const satisfies { readonly [K in PageFailure["_tag"]]: (error: Extract<PageFailure, { readonly _tag: K }>) => PageRow }

/** The error page for `error`, carrying the request's id. */
export const errorPageFor = (error: PageFailure) => {
  const row = (pageErrorTable[error._tag] as (e: PageFailure) => PageRow)(error)
  return Effect.map(Effect.service(RequestId), (requestId) => renderErrorPage({ ...row, requestId }))
}
