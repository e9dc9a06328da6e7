// The REST API v1 (spec §REST API): its routes, its one error table, and its generated OpenAPI document.
export { RestRoutes } from "./RestRoutes.ts"
export { restRefusalResponse } from "./restResponses.ts"
export { restErrors, restErrorAnswer, type RestRefusal } from "./errors.ts"
export { restApi, restBasePath, toolArgumentsOf } from "./restApi.ts"
export { openApiDocument, statusesOfRoute } from "./openApiDocument.ts"
