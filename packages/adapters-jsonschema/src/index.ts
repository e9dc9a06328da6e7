// @adgate/adapters-jsonschema: tool arguments checked against their JSON Schema with Ajv.
export { ArgumentValidatorAjv, makeArgumentValidatorAjv, problemOf } from "./ArgumentValidatorAjv.ts"
