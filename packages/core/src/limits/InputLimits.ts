// How large a request's JSON may be, the same for every JSON entry point (the REST API and the MCP server; spec
// §Limits; docs/limits.md, Request bodies and search text): the body's size, how deep it nests, and how long a search
// text may be (REST `q`, MCP `search_tools` `query`). The server sets the search text's maximum from
// ADGATE_MAX_SEARCH_QUERY_LENGTH; the others are the defaults below.
import { Context } from "effect"

export interface InputLimitsShape {
  /** The largest request body, in bytes (413 past it). */
  readonly maxBodyBytes: number
  /** How deep a JSON body may nest arrays and objects: far beyond any tool's arguments, far below a stack's limit. */
  readonly maxJsonDepth: number
  /**
   * The longest search text, in characters. Ranking costs time in proportion to the text (a 672 KB query cost 1.9 s
   * of CPU), and what a person or a model asks for fits in a few sentences.
   */
  readonly maxSearchQueryLength: number
}

export const defaultInputLimits: InputLimitsShape = {
  maxBodyBytes: 1024 * 1024,
  maxJsonDepth: 64,
  maxSearchQueryLength: 500
}

export const InputLimits = Context.Reference<InputLimitsShape>("core/limits/InputLimits", { defaultValue: () => defaultInputLimits })

/** True when `value` nests deeper than `max` arrays or objects; iterative, so a hostile depth cannot overflow it. */
export const nestsDeeperThan = (value: unknown, max: number): boolean => {
  const stack: Array<readonly [unknown, number]> = [[value, 1]]
  while (stack.length > 0) {
    const [current, depth] = stack.pop()!
    if (typeof current !== "object" || current === null) continue
    if (depth > max) return true
    for (const child of Object.values(current)) stack.push([child, depth + 1])
  }
  return false
}
