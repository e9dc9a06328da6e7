// A core-only ArgumentValidator for the in-memory catalog (memoryTools), so that core tests need no adapter: the
// keywords that catalog uses on its flat object schemas (required, additionalProperties: false, type, enum,
// minLength, exclusiveMinimum), each problem with its JSON Pointer as the real one reports it. The validator the
// service runs is Ajv (adapters-jsonschema, tested there against draft 2020-12).
import { ArgumentValidator, type ArgumentProblem } from "@adgate/core"
import { Effect, Layer, type Schema } from "effect"

type Keywords = {
  readonly type?: string
  readonly enum?: ReadonlyArray<unknown>
  readonly minLength?: number
  readonly exclusiveMinimum?: number
}

const typeOf = (value: unknown): string =>
  value === null ? "null" : Array.isArray(value) ? "array" : Number.isInteger(value) ? "integer" : typeof value

const fits = (type: string, value: unknown): boolean =>
  type === "number" ? typeof value === "number" : typeOf(value) === type

const problemsOf = (path: string, keywords: Keywords, value: unknown): ReadonlyArray<ArgumentProblem> => {
  if (keywords.type !== undefined && !fits(keywords.type, value)) return [{ path, message: `must be ${keywords.type}` }]
  if (keywords.enum !== undefined && !keywords.enum.includes(value)) return [{ path, message: "must be one of the allowed values" }]
  if (keywords.minLength !== undefined && typeof value === "string" && value.length < keywords.minLength)
    return [{ path, message: `must have at least ${keywords.minLength} characters` }]
  if (keywords.exclusiveMinimum !== undefined && typeof value === "number" && value <= keywords.exclusiveMinimum)
    return [{ path, message: `must be > ${keywords.exclusiveMinimum}` }]
  return []
}

const validate = (schema: Schema.JsonObject, args: Schema.JsonObject): ReadonlyArray<ArgumentProblem> => {
  const properties = (schema["properties"] ?? {}) as Readonly<Record<string, Keywords>>
  const required = (schema["required"] ?? []) as ReadonlyArray<string>
  const missing = required.filter((name) => !(name in args)).map((name) => ({ path: `/${name}`, message: "is required" }))
  const present = Object.entries(args).flatMap(([name, value]) => {
    const keywords = properties[name]
    if (keywords === undefined) return schema["additionalProperties"] === false ? [{ path: `/${name}`, message: "is not allowed" }] : []
    return problemsOf(`/${name}`, keywords, value)
  })
  return [...missing, ...present]
}

export const ArgumentValidatorForMemoryTools = Layer.succeed(ArgumentValidator, ArgumentValidator.of({
  validate: (schema, args) => Effect.sync(() => validate(schema, args))
}))
