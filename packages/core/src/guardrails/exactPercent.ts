// Percent comparisons of money without floating-point rounding (docs/decisions.md, Guardrails): amounts and caps
// are read as the exact decimals they are written as (129.6 is 1296/10, not the double nearest to it), and a change
// is compared with a cap in integers. Exactly +20 % of 129.60 (155.52) is then exactly 20 % and passes a 20 % cap,
// where `(155.52 - 129.6) / 129.6 * 100` in doubles is 20.000000000000004 and would be refused.

/** An exact decimal: `units / 10^scale`. */
interface Decimal {
  readonly units: bigint
  readonly scale: number
}

/**
 * The decimal a finite number is written as: JavaScript's shortest round-trip text of it ("129.6", "1e-7",
 * "1.5e+21"), read digit by digit. Amounts and caps arrive as JSON numbers, so this is the value the caller wrote.
 */
const decimalOf = (n: number): Decimal => {
  if (!Number.isFinite(n)) throw new RangeError(`not a finite amount: ${n}`)
  const match = /^(-?)(\d+)(?:\.(\d+))?(?:e([+-]\d+))?$/.exec(String(n))
  if (match === null) throw new RangeError(`not a decimal: ${n}`)
  const [, sign, whole, fraction = "", exponent = "0"] = match
  const digits = BigInt(`${whole}${fraction}`) * (sign === "-" ? -1n : 1n)
  const scale = fraction.length - Number(exponent)
  return scale >= 0 ? { units: digits, scale } : { units: digits * 10n ** BigInt(-scale), scale: 0 }
}

/** The decimals as integers over one common power of ten, `denominator` (10^scale). */
const common = (...values: ReadonlyArray<number>): { readonly units: ReadonlyArray<bigint>; readonly denominator: bigint } => {
  const decimals = values.map(decimalOf)
  const scale = Math.max(...decimals.map((d) => d.scale))
  return { units: decimals.map((d) => d.units * 10n ** BigInt(scale - d.scale)), denominator: 10n ** BigInt(scale) }
}

/**
 * Whether changing `from` to `to` is more than `capPercent` percent of `from`: |to − from| · 100 > cap · from,
 * exactly. From zero, any change is more (an unbounded percent); so is any change involving a non-finite amount.
 */
export const changeExceedsPercent = (from: number, to: number, capPercent: number): boolean => {
  // An amount that is no number (a platform's preview of a malformed raw body) cannot be shown within the cap.
  if (!Number.isFinite(from) || !Number.isFinite(to) || !Number.isFinite(capPercent)) return true
  const { units, denominator } = common(from, to, capPercent)
  const [f, t, c] = units as [bigint, bigint, bigint]
  if (f === t) return false
  if (f === 0n) return true
  const change = t > f ? t - f : f - t
  const base = f < 0n ? -f : f
  // Both sides over the common denominator S: change/S · 100 > c/S · base/S ⇔ change · 100 · S > c · base.
  return change * 100n * denominator > c * base
}

/**
 * The percent of a change, for people: two decimals, rounded away from zero so that a change over a cap never reads
 * as the cap itself (20.001 % reads 20.01 %, not 20.00 %). "an unbounded change" from zero.
 */
export const changePercentText = (from: number, to: number): string => {
  if (!Number.isFinite(from) || !Number.isFinite(to)) return "a change of no known size"
  const [f, t] = common(from, to).units as [bigint, bigint]
  if (f === 0n) return "an unbounded change"
  const change = t > f ? t - f : f - t
  const base = f < 0n ? -f : f
  // Hundredths of a percent, rounded up: ceil(change · 10000 / base).
  const hundredths = (change * 10_000n + base - 1n) / base
  const whole = hundredths / 100n
  const rest = (hundredths % 100n).toString().padStart(2, "0")
  return `${whole}.${rest} %`
}

/**
 * `from` changed by `percent` percent (a raise for a positive percent, a cut for a negative one) in whole cents,
 * rounded towards `from`: a raise is rounded down and a cut up, so a change of exactly P % never exceeds a P % cap
 * and is the largest cent amount that cap lets pass. Exact: 1.03 raised by 20 % is 1.236, so 1.23 (+19.42 %), never
 * 1.24 (+20.39 %). A change smaller than a cent answers `from` rounded the same way.
 */
export const changedByPercentInCents = (from: number, percent: number): number => {
  if (!Number.isFinite(from) || !Number.isFinite(percent)) throw new RangeError(`not a finite amount: ${from}, ${percent}`)
  const { units, denominator } = common(from, percent)
  const [f, p] = units as [bigint, bigint]
  // from · (100 + percent) / 100, in cents: f/S · (100 + p/S) = f · (100 · S + p) / S².
  const numerator = f * (100n * denominator + p)
  const divisor = denominator * denominator
  const truncated = numerator / divisor
  const floor = numerator % divisor !== 0n && numerator < 0n ? truncated - 1n : truncated
  const ceil = numerator % divisor !== 0n && numerator > 0n ? truncated + 1n : truncated
  // Towards from: down when the exact amount is above it (f · p > 0), up when below.
  return Number(f * p >= 0n ? floor : ceil) / 100
}
