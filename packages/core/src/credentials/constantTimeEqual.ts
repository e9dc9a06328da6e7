// Comparison of secrets (hashes, PKCE challenges) in time independent of where they differ (checklist 62).
/** Compares two strings without an early exit: time depends only on the longer length, never on the first difference. */
export const constantTimeEqual = (a: string, b: string): boolean => {
  const length = Math.max(a.length, b.length)
  let diff = a.length ^ b.length
  for (let i = 0; i < length; i++) diff |= (a.charCodeAt(i) | 0) ^ (b.charCodeAt(i) | 0)
  return diff === 0
}
