// @adgate/answers: what the REST API (adapters-http) and the MCP server (adapters-mcp) both answer over HTTP, in one
// place neither adapter owns: the refusal table (status, body, Retry-After) and the bearer challenge, the task
// report's rendering, the links to a write request and a task, how times read, and how a request's handler gets the
// ports its routes were built with (withPorts). It imports only the core and effect; both adapters import it, and
// neither imports the other (packages/core/test/boundaries.test.ts).
export {
  authorizationOf, BodyNotJson, BodyNotObject, BodyTooLarge, CredentialInQuery, CredentialRepeated, holdsSeveralCredentials, isRestRefusal, MethodNotAllowed, QueryInvalid, RouteNotFound,
  restErrorAnswer, restErrors, statusesOf, type RequestRefusal, type RestErrorAnswer, type RestErrorRow, type RestRefusal,
  type RestRefusalTag
} from "./errors.ts"
export {
  bearerChallenge, challengeOf, protectedResourceMetadataUrl, refusalAnswer, type BearerChallenge, type RefusalAnswer,
  type RefusalContext
} from "./bearerAnswers.ts"
export { taskReportAnswer } from "./taskReportAnswer.ts"
export { hasMatrixParameters, isoTime, isoTimeOrNull, requestStatusPath, restBasePath, taskPath } from "./links.ts"
export { taskView } from "./views.ts"
export { protectedResources, type ProtectedResource } from "./protectedResources.ts"
export { isMcpPath, jsonRpcErrorBody, mcpBodyTooLargeBody } from "./jsonRpc.ts"
export { logIfOutage, logOutage, outageOf, type Outage } from "./outages.ts"
export { type PortsOf, withPorts, type WithPorts } from "./withPorts.ts"
export { toolSurfacePortServices } from "./toolSurfacePorts.ts"
