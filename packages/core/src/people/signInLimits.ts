// How many FAILED sign-ins are allowed before the form answers 429 (docs/decisions.md, People; issue 7): per client
// address and per account, each in a fixed window. A successful sign-in is never counted.
export interface SignInLimit {
  readonly attempts: number
  readonly windowMs: number
}

/** Failed sign-ins from one client address (any accounts): a password-spraying address stops here. */
export const signInFailuresPerAddress: SignInLimit = { attempts: 10, windowMs: 15 * 60 * 1000 }

/** Failed sign-ins for one account (from any addresses): guessing one person's password stops here. */
export const signInFailuresPerAccount: SignInLimit = { attempts: 10, windowMs: 15 * 60 * 1000 }

export interface SignInLimits {
  readonly perAddress: SignInLimit
  readonly perAccount: SignInLimit
}

export const defaultSignInLimits: SignInLimits = { perAddress: signInFailuresPerAddress, perAccount: signInFailuresPerAccount }
