// The figures a run summarises over its rounds: the median (the middle of an odd count, the mean of the two middle
// values of an even one) and the spread as "median (min–max)".

/** The median of `xs`, null when there are none. */
export const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b)
  return s.length === 0 ? null : s.length % 2 === 1 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2
}

/** `x` with `digits` decimals, "–" when it was not measured. */
export const fixed = (x, digits = 2) => (x === null || x === undefined || Number.isNaN(x) ? "–" : x.toFixed(digits))

/** "median (min–max)" of `xs`, "–" when there are none. */
export const spread = (xs, digits = 2) =>
  xs.length === 0 ? "–" : `${fixed(median(xs), digits)} (${fixed(Math.min(...xs), digits)}–${fixed(Math.max(...xs), digits)})`
