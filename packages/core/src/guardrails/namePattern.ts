// The pattern language of protected names (docs/decisions.md, Guardrails): case-insensitive globs over the whole
// name. `*` matches any run of characters (also none), `?` exactly one character, every other character itself;
// surrounding spaces of name and pattern are ignored and both are compared in Unicode NFC, case-folded per character. "Brand*" protects
// "Brand – Search" and "brand shopping"; "*black friday*" protects any name containing it. Matched without regular
// expressions, in time linear in name × pattern at worst: a caller-chosen name cannot stall the event loop.

/** A pattern's length and `*` count are capped (the Guardrails schema refuses more). */
export const maxNamePatternLength = 200
export const maxNamePatternStars = 16

/** Why a pattern is refused, or null when it is acceptable. */
export const namePatternProblem = (pattern: string): string | null => {
  const chars = Array.from(normalized(pattern))
  if (chars.length === 0) return "a protected name pattern cannot be empty"
  if (chars.length > maxNamePatternLength) return `a protected name pattern has at most ${maxNamePatternLength} characters`
  if (chars.filter((c) => c === "*").length > maxNamePatternStars) return `a protected name pattern has at most ${maxNamePatternStars} "*"`
  return null
}

function normalized(text: string): string {
  return text.trim().normalize("NFC")
}

/**
 * One character case-folded as Unicode's simple case folding does: upper-cased, then lower-cased, when that is one
 * character (ς and σ both become σ, ſ becomes s, the Kelvin sign k, ǅ ǆ, µ μ, ẞ ß); otherwise only lower-cased (ß
 * stays ß rather than "ss", İ becomes i̇), so one character stays one element and `?` still matches one character.
 * Lower-casing alone missed the final sigma: `καφες*` did not protect "ΚΑΦΕΣ – Search" (the guardrail failed open).
 */
const foldCharacter = (c: string): string => {
  const folded = c.toUpperCase().toLowerCase()
  return folded.length === 1 || (folded.length === 2 && folded.codePointAt(0)! > 0xffff) ? folded : c.toLowerCase()
}

/** Code points, case-folded one by one (so both sides keep one element per character). */
const folded = (text: string): ReadonlyArray<string> => Array.from(normalized(text), foldCharacter)

/**
 * The classic greedy wildcard match with one remembered `*`: on a mismatch the last `*` absorbs one more character
 * and matching resumes after it. Each step moves the name forward or retries from the last star, so the work is at
 * most name × pattern, never exponential.
 */
const wildcardMatch = (pattern: ReadonlyArray<string>, name: ReadonlyArray<string>): boolean => {
  let p = 0
  let n = 0
  let star = -1
  let resume = 0
  while (n < name.length) {
    if (p < pattern.length && (pattern[p] === "?" || (pattern[p] !== "*" && pattern[p] === name[n]))) {
      p++
      n++
    } else if (p < pattern.length && pattern[p] === "*") {
      star = p++
      resume = n
    } else if (star !== -1) {
      p = star + 1
      n = ++resume
    } else {
      return false
    }
  }
  while (p < pattern.length && pattern[p] === "*") p++
  return p === pattern.length
}

export interface NamePattern {
  readonly test: (name: string) => boolean
}

/** Compiles a pattern once (its folded characters); `test` answers whether a whole name matches. */
export const compileNamePattern = (pattern: string): NamePattern => {
  const chars = folded(pattern)
  return { test: (name) => wildcardMatch(chars, folded(name)) }
}

/** The first pattern matching `name`, or null. */
export const matchingNamePattern = (patterns: ReadonlyArray<string>, name: string): string | null =>
  patterns.find((p) => compileNamePattern(p).test(name)) ?? null
