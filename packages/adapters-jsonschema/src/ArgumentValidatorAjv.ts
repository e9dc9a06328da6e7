// ArgumentValidator with Ajv (JSON Schema draft 2020-12), the most used JSON Schema validator for JavaScript: every
// problem of a tool call's arguments as a JSON Pointer and a message, for the 422 answer (spec §REST status codes).
import { ArgumentValidator, type ArgumentProblem } from "@adgate/core"
import { Ajv2020, type ErrorObject, type ValidateFunction } from "ajv/dist/2020.js"
import { Effect, Layer } from "effect"

/** Appends one property name to a JSON Pointer (RFC 6901 §3: `~` → `~0`, `/` → `~1`). */
const pointer = (base: string, property: string): string => `${base}/${property.replace(/~/g, "~0").replace(/\//g, "~1")}`

/** Ajv reports a missing or unexpected property at its parent object; the caller wants the property's own path. */
export const problemOf = (error: ErrorObject): ArgumentProblem => {
  const params = error.params as Record<string, unknown>
  if (error.keyword === "required" && typeof params["missingProperty"] === "string") {
    return { path: pointer(error.instancePath, params["missingProperty"]), message: "is required" }
  }
  if (error.keyword === "additionalProperties" && typeof params["additionalProperty"] === "string") {
    return { path: pointer(error.instancePath, params["additionalProperty"]), message: "is not an argument of this tool" }
  }
  return { path: error.instancePath, message: error.message ?? `fails ${error.keyword}` }
}

export const makeArgumentValidatorAjv = () => {
  const ajv = new Ajv2020({
    // Every problem at once, so one 422 names them all.
    allErrors: true,
    // Platform schemas may carry annotations Ajv does not know (e.g. "x-unit"); they are ignored, not fatal.
    strict: false,
    // Formats need the ajv-formats plugin; "format" stays an annotation, as draft 2020-12 makes it by default.
    validateFormats: false,
    // `multipleOf` compares the quotient within 1e-6 instead of requiring an exact integer: a budget of 0.07 or 132.29
    // is not an exact binary multiple of 0.01 (0.07 / 0.01 = 7.000000000000001), and without a tolerance Ajv refused
    // one in seven cent amounts with a 422. The quotient of an amount up to 10^6 by 0.01 errs by ~10^-8 at most, so a
    // half cent (quotient x.5) is still refused.
    multipleOfPrecision: 6,
    logger: false
  })
  // Compiling is the expensive part: each schema is compiled once, keyed by its JSON text.
  const compiled = new Map<string, ValidateFunction>()
  // The catalog's schemas are the same objects on every call: found by identity first, without serialising the
  // schema again (a JSON.stringify per call was ~2 % of a tool call's CPU, bench/README.md §9).
  const byObject = new WeakMap<object, ValidateFunction>()
  const validatorOf = (schema: object): ValidateFunction => {
    const known = byObject.get(schema)
    if (known !== undefined) return known
    const key = JSON.stringify(schema)
    const validate = compiled.get(key) ?? ajv.compile(schema)
    compiled.set(key, validate)
    byObject.set(schema, validate)
    return validate
  }
  return ArgumentValidator.of({
    validate: (schema, args) =>
      Effect.sync(() => {
        const validate = validatorOf(schema)
        return validate(args) ? [] : (validate.errors ?? []).map(problemOf)
      })
  })
}

export const ArgumentValidatorAjv = Layer.sync(ArgumentValidator, makeArgumentValidatorAjv)
