// The core ports the management pages (own apps, API keys, settings, account) run their services on, captured when
// their routes are built, as the OAuth routes capture CorePorts.
import type { Context } from "effect"
import { type PortsOf, withPorts } from "@adgate/answers"
import { CreditsLedger, GuardrailStore, PasswordHasher, PeopleStore } from "@adgate/core"
import { corePortServices } from "../oauth/CorePorts.ts"
import { People } from "../people/People.ts"

/** The pages' ports, as values; with People: the frame (workspaceFrame.ts) finds the signed-in person through it. */
export const pagePortServices = [...corePortServices, CreditsLedger, GuardrailStore, PasswordHasher, PeopleStore, People] as const

export type PagePorts = PortsOf<typeof pagePortServices>

/**
 * How a page's handler gets these ports as the routes were built with them (withPorts, @adgate/answers). People is
 * the application layer's own (HttpApp), so no request holds it: it, and any port the request lacks, is added.
 */
export const withPagePorts = (context: Context.Context<PagePorts>) => withPorts(pagePortServices, context)
