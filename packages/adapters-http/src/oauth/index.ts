// Every OAuth endpoint of the service as one Layer of routes (spec §OAuth authorization server, §Discovery):
// authorize and consent, token and revoke, registration, and the discovery documents. Merged by HttpApp.ts.
import { Layer } from "effect"
import { DiscoveryRoutes } from "../discovery/DiscoveryRoutes.ts"
import { AuthorizeRoutes } from "./AuthorizeRoutes.ts"
import { RegisterRoutes } from "./RegisterRoutes.ts"
import { TokenRoutes } from "./TokenRoutes.ts"

export const OAuthRoutes = Layer.mergeAll(AuthorizeRoutes, TokenRoutes, RegisterRoutes, DiscoveryRoutes)
