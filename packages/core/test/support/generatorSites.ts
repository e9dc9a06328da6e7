// Where a TypeScript source makes its generator functions per call (docs/architecture.md, "Code on the request path:
// generator functions are made once"), read from its syntax tree (oxc-parser): an arrow's body, a returned or wrapped
// `Effect.gen`, a ternary's branch, an inner `const`, an `Effect.fnUntraced(…)` made inside a function. Comments and
// strings are not code, so they match nothing. What the syntax cannot show is not seen: a class field's initializer
// (made once per instance) counts as made once, and so does a module-level layer provided anew per request.
import { parseSync } from "oxc-parser"

/** A generator function made each time the function around it runs. */
export interface PerCallGenerator {
  /** 1-based line of the `function*`. */
  readonly line: number
  /** The function it is made in: its name, or what it is handed to (`router.add("GET", "/x")`). */
  readonly maker: string
}

interface Node {
  readonly type: string
  readonly start: number
  readonly end: number
  readonly [key: string]: unknown
}

const isNode = (value: unknown): value is Node =>
  typeof value === "object" && value !== null && typeof (value as { type?: unknown }).type === "string"

const isFunction = (node: Node): boolean =>
  node.type === "FunctionExpression" || node.type === "FunctionDeclaration" || node.type === "ArrowFunctionExpression"

/**
 * Calls whose argument runs once, when a layer or a router is built: what is made directly inside it is made once
 * too. `HttpRouter.middleware` given an Effect is one of them (the function that Effect returns runs once per route,
 * or once for a global middleware); given a function, that function's body runs per request.
 */
const buildsOnce = new Set([
  "Layer.effect", "Layer.effectDiscard", "Layer.effectContext", "Layer.unwrap", "HttpRouter.use", "HttpRouter.middleware"
])

/** The wrappers a generator body goes through on its way to such a call: `Effect.gen(…)`, `Effect.fn("x")(…)`. */
const wrapsABody = new Set(["Effect.gen", "Effect.fn", "Effect.fnUntraced"])

/** The generator functions `source` makes per call of the function around them. */
export const perCallGenerators = (file: string, source: string): ReadonlyArray<PerCallGenerator> => {
  const { program, errors } = parseSync(file, source)
  if (errors.length > 0) throw new Error(`${file}: ${errors[0]!.message}`)
  const parent = new Map<Node, Node | null>()
  const generators: Array<Node> = []
  const visit = (node: Node, above: Node | null): void => {
    parent.set(node, above)
    if ((node.type === "FunctionExpression" || node.type === "FunctionDeclaration") && node["generator"] === true)
      generators.push(node)
    for (const key in node) {
      const value = node[key]
      if (Array.isArray(value)) for (const child of value) { if (isNode(child)) visit(child, node) }
      else if (isNode(value)) visit(value, node)
    }
  }
  visit(program as unknown as Node, null)

  const text = (node: Node) => source.slice(node.start, node.end)
  /** The name a call is made by: `Layer.effect` for `Layer.effect(Tag, …)` and `Layer.effect(Tag)(…)` alike. */
  const calleeName = (call: Node): string => {
    const callee = call["callee"] as Node
    return text(callee.type === "CallExpression" ? callee["callee"] as Node : callee)
  }
  const enclosingFunction = (node: Node): Node | null => {
    let above = parent.get(node) ?? null
    while (above !== null && !isFunction(above)) above = parent.get(above) ?? null
    return above
  }
  const once = new Map<Node, boolean>()
  /** Whether `fn` runs once: it is the body of a layer's or a router's build, itself made once. */
  const runsOnce = (fn: Node | null): boolean => {
    if (fn === null) return true
    const known = once.get(fn)
    if (known !== undefined) return known
    once.set(fn, false)
    let node = fn
    let above = parent.get(node) ?? null
    let answer = false
    while (above !== null) {
      if (above.type === "CallExpression" && (above["arguments"] as Array<Node>).includes(node)) {
        const name = calleeName(above)
        if (buildsOnce.has(name))
          answer = name === "HttpRouter.middleware" && node !== fn && isFunction(node) ? false : runsOnce(enclosingFunction(above))
        else if (wrapsABody.has(name)) {
          node = above
          above = parent.get(node) ?? null
          continue
        }
        break
      }
      if (above.type === "CallExpression" && above["callee"] === node && wrapsABody.has(calleeName(above))) {
        node = above
        above = parent.get(node) ?? null
        continue
      }
      if (above.type === "ArrowFunctionExpression" && above["body"] === node) {
        node = above
        above = parent.get(node) ?? null
        continue
      }
      break
    }
    once.set(fn, answer)
    return answer
  }
  const nameOf = (fn: Node): string => {
    const id = fn["id"]
    if (isNode(id)) return text(id)
    // Named by what its wrappers are assigned to: `const read = Effect.fnUntraced(function* …)` is `read`.
    let node = fn
    let above = parent.get(node) ?? null
    while (above !== null && above.type === "CallExpression" && wrapsABody.has(calleeName(above)) &&
      (above["callee"] === node || (above["arguments"] as Array<Node>).includes(node))) {
      node = above
      above = parent.get(node) ?? null
    }
    if (above === null) return "(module)"
    if (above.type === "VariableDeclarator") return text(above["id"] as Node)
    if (above.type === "Property" || above.type === "MethodDefinition" || above.type === "PropertyDefinition")
      return text(above["key"] as Node)
    if (above.type === "CallExpression" && (above["arguments"] as Array<Node>).includes(node)) {
      const literals = (above["arguments"] as Array<Node>).filter((a) => a.type === "Literal" && typeof a["value"] === "string")
      return `${text(above["callee"] as Node).replace(/\s+/g, " ").slice(0, 60)}(${literals.map(text).join(", ")})`
    }
    return `in ${namedAncestor(above)}`
  }
  /** The name of the declaration, property or method `node` is written in (`(module)` when none). */
  const namedAncestor = (node: Node | null): string => {
    for (let at = node; at !== null; at = parent.get(at) ?? null) {
      const id = at["id"]
      if (at.type === "FunctionDeclaration" && isNode(id)) return text(id)
      if (at.type === "VariableDeclarator") return text(at["id"] as Node)
      if (at.type === "Property" || at.type === "MethodDefinition" || at.type === "PropertyDefinition") return text(at["key"] as Node)
    }
    return "(module)"
  }
  return generators.flatMap((generator) => {
    const maker = enclosingFunction(generator)
    if (runsOnce(maker)) return []
    return [{ line: source.slice(0, generator.start).split("\n").length, maker: nameOf(maker!) }]
  })
}
