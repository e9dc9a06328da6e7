// GET /api/v1/openapi.json (spec §Versioning 2): the OpenAPI 3.1 document GENERATED from the route table the server
// registers (restApi.ts), its Schemas turned into JSON Schema 2020-12 by effect's JSON Schema support, and each
// route's error statuses taken from the one error table (errors.ts). Nothing here is written by hand per route.
import { Schema } from "effect"
import { restErrors, statusesOf, type RestRefusalTag } from "@adgate/answers"
import { restApi, restBasePath, type RestRoute } from "./restApi.ts"
import { ErrorBody } from "./restSchemas.ts"

/** Refusals every bearer route can answer, before its handler runs (RestRoutes.ts). */
export const bearerRefusals: ReadonlyArray<RestRefusalTag> = [
  "CredentialInQuery", "CredentialRepeated", "CredentialMissing", "InvalidCredential", "RequestsThrottled", "StoreUnavailable"
]
/** Refusals of reading a JSON body (RestRoutes.ts). */
export const bodyRefusals: ReadonlyArray<RestRefusalTag> = ["BodyNotJson", "BodyNotObject", "BodyTooLarge"]

/** Every refusal a route can answer: its own, and those of the bearer check and the body reading. */
export const refusalsOf = (route: RestRoute): ReadonlyArray<RestRefusalTag> => [
  ...(route.access._tag === "Bearer" ? bearerRefusals : []),
  ...(route.body === null ? [] : bodyRefusals),
  ...route.refusals
]

/** Every status a route can answer: its successes, its refusals' statuses, and 500 for a failure nobody foresaw. */
export const statusesOfRoute = (route: RestRoute): ReadonlyArray<number> =>
  [...new Set([...route.successes.map((s) => s.status), ...statusesOf(refusalsOf(route)), 500])].sort((a, b) => a - b)

/** JSON Schema 2020-12 of a Schema (its decoded type), inline: the API's Schemas carry no identifiers. */
export const jsonSchemaOf = (schema: Schema.Top): Record<string, unknown> => {
  const document = Schema.toJsonSchemaDocument(Schema.toType(schema))
  if (Object.keys(document.definitions).length > 0) throw new Error("REST schemas must be inline (no identifier annotations)")
  return document.schema as Record<string, unknown>
}

const retryAfter = { description: "Seconds to wait before retrying", schema: { type: "integer", minimum: 0 } }
const headersOf = (status: number): Record<string, unknown> | undefined => {
  switch (status) {
    case 401: return { "WWW-Authenticate": { description: "Bearer resource_metadata=\"…/.well-known/oauth-protected-resource/api/v1\", scope=\"…\" (error=\"invalid_token\" when a credential was sent)", schema: { type: "string" } } }
    case 403: return { "WWW-Authenticate": { description: "For insufficient_scope: Bearer error=\"insufficient_scope\", scope=\"<the scope to ask for>\"", schema: { type: "string" } } }
    case 429:
    case 503: return { "Retry-After": retryAfter }
    case 201: return { Location: { description: "The new task's URL", schema: { type: "string", format: "uri" } } }
    default: return undefined
  }
}

const errorResponse = (status: number, tags: ReadonlyArray<RestRefusalTag>) => {
  const codes = [...new Set(tags.filter((t) => restErrors[t].status === status).map((t) => restErrors[t].error))]
  const headers = headersOf(status)
  return {
    description: status === 500 ? "server_error: an unexpected failure; the body names the request id" : codes.join(", "),
    ...(headers === undefined ? {} : { headers }),
    content: { "application/json": { schema: { $ref: "#/components/schemas/Error" } } }
  }
}

const operationOf = (route: RestRoute) => {
  const refusals = refusalsOf(route)
  const responses: Record<string, unknown> = {}
  for (const success of route.successes) {
    const headers = headersOf(success.status)
    responses[String(success.status)] = {
      description: success.description,
      ...(headers === undefined ? {} : { headers }),
      content: { "application/json": { schema: jsonSchemaOf(success.schema) } }
    }
  }
  for (const status of statusesOfRoute(route)) if (responses[String(status)] === undefined) responses[String(status)] = errorResponse(status, refusals)
  const parameters = [
    ...route.pathParams.map((p) => ({ name: p.name, in: "path", required: true, description: p.description, schema: { type: "string" } })),
    ...Object.entries(route.query).map(([name, q]) => ({ name, in: "query", required: false, description: q.description, schema: jsonSchemaOf(q.schema) })),
    ...route.headers.map((h) => ({ name: h.name, in: "header", required: false, description: h.description, schema: jsonSchemaOf(h.schema) }))
  ]
  const scopes = route.access._tag === "Bearer" ? route.access.anyOf : null
  return {
    operationId: route.operationId,
    summary: route.summary,
    description: route.description + (scopes === null ? "" : ` Needs ${scopes.join(" or ")}.`),
    security: route.access._tag === "Public" ? [] : [{ bearer: [] }],
    ...(parameters.length === 0 ? {} : { parameters }),
    ...(route.body === null ? {} : {
      requestBody: {
        required: route.operationId !== "callTool",
        description: route.body.description,
        content: { "application/json": { schema: jsonSchemaOf(route.body.schema) } }
      }
    }),
    responses
  }
}

/** The document for a service at `origin`. */
export const openApiDocument = (origin: string) => {
  const paths: Record<string, Record<string, unknown>> = {}
  for (const route of restApi) {
    paths[route.path] = { ...paths[route.path], [route.method.toLowerCase()]: operationOf(route) }
  }
  return {
    openapi: "3.1.0",
    info: {
      title: "adgate REST API",
      version: "1.0.0",
      description: "Workspace capabilities over JSON: connected accounts, platform tools with an approval queue, " +
        "guardrails and credits, and tasks. Authenticate with `Authorization: Bearer <API key or OAuth access token>`; " +
        "an OAuth token must be issued for the resource " + `${origin}${restBasePath} (or ${origin}).`
    },
    servers: [{ url: `${origin}${restBasePath}` }],
    components: {
      securitySchemes: {
        bearer: {
          type: "http",
          scheme: "bearer",
          description: `An API key (ap_live_…) or an OAuth 2.1 access token (apo_at_…); OAuth metadata: ${origin}/.well-known/oauth-protected-resource${restBasePath}`
        }
      },
      schemas: { Error: jsonSchemaOf(ErrorBody) }
    },
    security: [{ bearer: [] }],
    paths
  }
}
