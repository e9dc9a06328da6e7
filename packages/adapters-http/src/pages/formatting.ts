// How the management pages write times and amounts: one way everywhere, readable without JavaScript and the same in
// every time zone (UTC, said so).

/** `2026-11-27 19:46 UTC`; "never" for null. */
export const formatWhen = (at: number | null): string =>
  at === null ? "never" : `${new Date(at).toISOString().slice(0, 16).replace("T", " ")} UTC`

/** Credits with up to two decimals, grouped: `1,234.5`. */
export const formatCredits = (amount: number): string =>
  amount.toLocaleString("en-US", { maximumFractionDigits: 2 })
