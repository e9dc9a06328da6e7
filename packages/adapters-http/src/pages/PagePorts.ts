// The core ports the management pages (own apps, API keys, settings, account) run their services on, captured when
// their routes are built, as the OAuth routes capture CorePorts.
import type { CreditsLedger, GuardrailStore, PasswordHasher, PeopleStore } from "@adgate/core"
import type { CorePorts } from "../oauth/CorePorts.ts"
import type { People } from "../people/People.ts"

/** With People: the frame (workspaceFrame.ts) finds the signed-in person through it. */
export type PagePorts = CorePorts | CreditsLedger | GuardrailStore | PasswordHasher | PeopleStore | People
