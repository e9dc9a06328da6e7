// The one rule for a password, wherever one is set: a person added (CLI, first start), a password set by the
// operator (CLI `user password`) or changed by its person (account page). Each surface says the problem in its own
// words; none checks a length of its own.

/** The shortest password accepted. */
export const passwordMinLength = 8

/** The sign-in form reads at most this many characters of a password; a longer one could never sign in. */
export const passwordMaxLength = 1024

/** Why a text cannot be a password. */
export type PasswordProblem = "too_short" | "too_long"

/** Why `password` cannot be a password, or null. */
export const passwordProblem = (password: string): PasswordProblem | null =>
  password.length < passwordMinLength ? "too_short" : password.length > passwordMaxLength ? "too_long" : null
