// The words of every mail the service sends (spec §Events; docs/service.md, Mail), beside the pages' words: the app
// named as the consent page names it, the permissions in the consent page's words, and links that are the pages' own
// addresses (pagePaths) made absolute on the issuer, so a link opens the right row of the right workspace. A mail is
// text, with an HTML part made from it (mailHtml); no secret ever reaches a mail (the facts carry none). The mail
// reader (adapters-sql) decides who gets which.
import { Effect, Layer } from "effect"
import {
  appLabelText, flatText, Issuer, MailWords, oneLine, type AppConnectedFacts, type ChangeWaitingFacts, type MailPerson, type MailText,
  type MailWordsShape, type PlatformChoice, type Surface, type WaitReason, type WriteMode
} from "@adgate/core"
import { scopeDescriptions } from "../oauth/consentView.ts"
import { formatWhen } from "../pages/formatting.ts"
import { html } from "../pages/layout.ts"
import { linkedText } from "./linkedText.ts"
import { absolute, pagePaths } from "../pages/pagePaths.ts"

const personLabel = (person: MailPerson): string => `${oneLine(person.name)} <${oneLine(person.email)}>`

const surfaceWords: Readonly<Record<Surface, string>> = {
  mcp: "the MCP server",
  rest: "the REST API",
  both: "the MCP server and the REST API"
}

const platformWords = (platforms: PlatformChoice): string =>
  platforms === "all" ? "all connected platforms, including ones connected later" : platforms.join(", ") || "none"

const writeModeWords: Readonly<Record<WriteMode, string>> = {
  wait: "each change waits for a person's approval",
  apply: "ordinary changes apply at once (deletes and activations still wait)"
}

const whyItWaits: Readonly<Record<WaitReason, string>> = {
  person_decision: "This kind of change (a delete, an activation, code for a website, or what the platform marks so) is always a person's decision.",
  approval: "The connection or API key that asked for it waits for approval before changes are made."
}


/** The mail every admin of the workspace gets when an app is connected, with the link to its Connected apps row. */
export const appConnectedMail = (facts: AppConnectedFacts, origin: string): MailText => {
  const app = appLabelText(facts.app)
  const workspace = oneLine(facts.workspace.name)
  const approver = facts.approver === null ? `a former member (${facts.approverId})` : personLabel(facts.approver)
  const who = facts.approver !== null && facts.approver.email === facts.recipient.email ? "You" : approver.charAt(0).toUpperCase() + approver.slice(1)
  return {
    subject: `App connected to ${workspace}: ${app}`,
    text: [
      `Hello ${oneLine(facts.recipient.name)},`,
      "",
      `${who} connected an app to the workspace ${workspace}.`,
      "",
      `App: ${app}`,
      `Approved by: ${approver}`,
      "Permissions:",
      ...facts.scopes.map((scope) => `  - ${scopeDescriptions[scope]} (${scope})`),
      `Connects to: ${surfaceWords[facts.surface]}`,
      `Platforms: ${platformWords(facts.platforms)}`,
      `Writes: ${writeModeWords[facts.writeMode]}`,
      "",
      "See it under Connected apps, where Disconnect ends it at once:",
      absolute(origin, pagePaths.connectedApp(facts.workspace.id, facts.connectionId)),
      "",
      `You get this mail because you are an admin of ${workspace}.`
    ].join("\n")
  }
}

/** The mail the connecting person gets when a change they asked for waits, with the link to it under Write approvals. */
export const changeWaitingMail = (facts: ChangeWaitingFacts, origin: string): MailText => {
  const workspace = oneLine(facts.workspace.name)
  return {
    subject: `Approval needed in ${workspace}: ${oneLine(facts.toolTitle)} (${facts.requestId})`,
    text: [
      `Hello ${oneLine(facts.recipient.name)},`,
      "",
      `A change asked for with your connection or API key waits for approval in ${workspace}:`,
      "",
      `  ${flatText(facts.summary)}`,
      "",
      `Tool: ${oneLine(facts.toolTitle)} (${facts.tool})`,
      `Why it waits: ${whyItWaits[facts.reason]}`,
      `Who can decide: a workspace admin or editor${facts.deciders.length === 0 ? "" : ` (${facts.deciders.map(personLabel).join(", ")})`}.`,
      `Unanswered, it expires on ${formatWhen(facts.expiresAt)}.`,
      "",
      "See it, approve or decline it under Write approvals:",
      absolute(origin, pagePaths.approval(facts.workspace.id, facts.requestId))
    ].join("\n")
  }
}

/** Every mail's words, with links on `origin` (the issuer, BASE_URL). */
export const mailWords = (origin: string): MailWordsShape => ({
  appConnected: (facts) => appConnectedMail(facts, origin),
  changeWaiting: (facts) => changeWaitingMail(facts, origin)
})

/** MailWords with the words above, linking to the pages on the Issuer's origin. */
export const MailWordsHttp = Layer.effect(MailWords, Effect.gen(function* () {
  return mailWords((yield* Issuer).origin)
}))

/**
 * The HTML part of a mail, made from its text: the same words, escaped, line breaks kept, and the links to this
 * service's own pages clickable (any other address stays text, as on the development mailbox).
 */
export const mailHtml = (text: string, origin: string): string =>
  html`<!doctype html>
<html><body><div style="white-space:pre-wrap;font-family:system-ui,-apple-system,'Segoe UI',Roboto,sans-serif;font-size:15px;line-height:1.5">${linkedText(text, origin)}</div></body></html>`.value
