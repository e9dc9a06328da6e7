// The discovery documents (spec §Discovery): authorization server metadata (RFC 8414, with RFC 9207's
// authorization_response_iss_parameter_supported) and the protected resource metadata of each surface (RFC 9728).
import { allScopes } from "@adgate/core"
import { type ProtectedResource, protectedResources } from "@adgate/answers"

export const oauthPaths = {
  authorize: "/oauth/authorize",
  token: "/oauth/token",
  revoke: "/oauth/revoke",
  register: "/oauth/register",
  consent: "/oauth/consent"
} as const

const clientAuthMethods = ["client_secret_basic", "client_secret_post", "none"] as const

/** RFC 8414 §2; `issuer` is the service origin exactly (RFC 8414 §3.3). Only what is implemented is advertised. */
export const authorizationServerMetadata = (issuer: string) => ({
  issuer,
  authorization_endpoint: `${issuer}${oauthPaths.authorize}`,
  token_endpoint: `${issuer}${oauthPaths.token}`,
  revocation_endpoint: `${issuer}${oauthPaths.revoke}`,
  registration_endpoint: `${issuer}${oauthPaths.register}`,
  scopes_supported: [...allScopes],
  response_types_supported: ["code"],
  response_modes_supported: ["query"],
  grant_types_supported: ["authorization_code", "refresh_token"],
  token_endpoint_auth_methods_supported: [...clientAuthMethods],
  revocation_endpoint_auth_methods_supported: [...clientAuthMethods],
  code_challenge_methods_supported: ["S256"],
  client_id_metadata_document_supported: true,
  authorization_response_iss_parameter_supported: true,
  service_documentation: `${issuer}/api/v1/openapi.json`
})

/** RFC 9728 §2; `resource` is the exact URL a token is bound to (RFC 8707), without offline_access in scopes. */
export const protectedResourceMetadata = (issuer: string, resource: ProtectedResource) => ({
  resource: `${issuer}${protectedResources[resource].path}`,
  authorization_servers: [issuer],
  scopes_supported: [...allScopes],
  bearer_methods_supported: ["header"],
  resource_name: protectedResources[resource].name
})

/** Where each document is served (RFC 8414 §3, RFC 9728 §3.1: the well-known path inserted before the path). */
export const discoveryPaths = {
  authorizationServer: "/.well-known/oauth-authorization-server",
  authorizationServerOf: (resource: ProtectedResource): `/${string}` => `/.well-known/oauth-authorization-server${protectedResources[resource].path}`,
  protectedResource: "/.well-known/oauth-protected-resource",
  protectedResourceOf: (resource: ProtectedResource): `/${string}` => `/.well-known/oauth-protected-resource${protectedResources[resource].path}`
} as const
