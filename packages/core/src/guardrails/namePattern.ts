// The pattern language of protected names (docs/decisions.md, Guardrails): case-insensitive globs over the whole
// name. `*` matches any run of characters (also none), `?` exactly one character, every other character itself;
// surrounding spaces of name and pattern are ignored and both are compared in Unicode NFC. "Brand*" protects
// "Brand – Search" and "brand shopping"; "*black friday*" protects any name containing it.

const escapeRegExp = (text: string): string => text.replace(/[.+^${}()|[\]\\]/g, "\\$&")

const normalized = (text: string): string => text.trim().normalize("NFC")

/** Compiles a pattern once; the regular expression has no backtracking hazard (only `.*` and `.` between literals). */
export const compileNamePattern = (pattern: string): RegExp =>
  new RegExp(
    `^${normalized(pattern).split("").map((c) => (c === "*" ? ".*" : c === "?" ? "." : escapeRegExp(c))).join("")}$`,
    "isu"
  )

/** The first pattern matching `name`, or null. */
export const matchingNamePattern = (patterns: ReadonlyArray<string>, name: string): string | null =>
  patterns.find((p) => compileNamePattern(p).test(normalized(name))) ?? null
