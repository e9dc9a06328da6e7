// The sequences: fast-check model-based commands sent to the server (authorize, exchange, refresh, revoke, probe,
// wait), each answer compared with the oracle's prediction. A fixed tour first walks every rule once; then random
// sequences, and a deviation is shrunk by fast-check to the shortest sequence that still shows it. Parallel commands
// are real concurrency: their requests are all in flight at once.
import { randomBytes } from "node:crypto"
import * as fc from "fast-check"
import { type Answer, authorized, describeAnswer, emptyWorld, type Request, spentAt, step, type World } from "./oracle.ts"
import type { Obtained, Target, WireExchange } from "./driver.ts"
import { type Profile, type RuleId, rules } from "./rules.ts"

/** What the kit knows of one run: everything the server handed out, in order. */
export interface Model {
  codes: Array<Obtained>
  refresh: Array<string>
  access: Array<string>
  waits: number
}

interface Real {
  readonly target: Target
  readonly profile: Profile
  worlds: ReadonlyArray<World>
  readonly log: Array<StepLog>
}

export interface StepLog {
  readonly command: string
  readonly wire: ReadonlyArray<WireExchange>
  readonly answers: ReadonlyArray<string>
}

/** A deviation: the server's answers fit no world the oracle allows. */
export class Deviation extends Error {
  readonly rules: ReadonlyArray<RuleId>
  readonly command: string
  readonly expected: ReadonlyArray<string>
  readonly reasons: ReadonlyArray<string>
  readonly log: ReadonlyArray<StepLog>
  constructor(rules: ReadonlyArray<RuleId>, command: string, expected: ReadonlyArray<string>, reasons: ReadonlyArray<string>, log: ReadonlyArray<StepLog>) {
    super(`${command}: ${reasons.filter((r) => r !== "as predicted").join("; ")} (${rules.map(ruleWithRow).join("; ")})`)
    this.rules = rules
    this.command = command
    this.expected = expected
    this.reasons = reasons
    this.log = log
  }
}
const ruleWithRow = (id: RuleId) => `${id}: ${rules[id].row}`

export interface Knobs {
  readonly quick: boolean
  /** The widest a parallel command goes. */
  readonly maxParallel: number
  /** A scope outside the grant (for the widen command) and one inside (narrow). */
  readonly widenScope: string
  readonly narrowScope: string
  readonly exercised: Set<RuleId>
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))
const pick = <T>(items: ReadonlyArray<T>, back: number): T => items[items.length - 1 - (back % items.length)]!
/** The label of a command as sent: `-n` counts back from the newest of what the run holds. */
const sentLabel = (label: string, requested: number, length: number) => length === 0 ? label : label.replace(`-${requested}`, `-${requested % length}`)
const describe = (answers: ReadonlyArray<Answer>) => answers.map(describeAnswer)

/** Sends `requests` together, asks the oracle, keeps the log; throws a Deviation when no world is left. */
const exchangeWithOracle = async (
  real: Real, knobs: Knobs, command: string, requests: ReadonlyArray<Request>, send: (request: Request) => Promise<Answer>, race: RuleId | null
): Promise<ReadonlyArray<Answer>> => {
  const from = real.target.transcript.length
  const answers = await Promise.all(requests.map(send))
  const now = Date.now()
  const result = step(real.worlds, requests, answers, real.profile, now, race)
  real.log.push({ command, wire: real.target.transcript.slice(from), answers: describe(answers) })
  for (const rule of result.exercised) knobs.exercised.add(rule)
  if (result.deviation !== null)
    throw new Deviation(result.deviation.rules, command, result.deviation.expected, result.deviation.reasons, [...real.log])
  real.worlds = result.worlds
  return answers
}

const keepTokens = (m: Model, answers: ReadonlyArray<Answer>) => {
  for (const answer of answers) {
    if (answer._tag !== "Tokens") continue
    m.access.push(answer.access)
    if (answer.refresh !== null) m.refresh.push(answer.refresh)
  }
}

type Command = fc.AsyncCommand<Model, Real>

export const authorizeCommand = (_knobs: Knobs, most = 4): Command => ({
  check: (m) => m.codes.length < most,
  run: async (m, real) => {
    const from = real.target.transcript.length
    const obtained = await real.target.authorize()
    const now = Date.now()
    real.worlds = real.worlds.map((w) => authorized(w, obtained.code, real.target.client.client_id, real.target.redirectUri, obtained.verifier, now))
    real.log.push({ command: "authorize()", wire: real.target.transcript.slice(from), answers: ["code"] })
    m.codes.push(obtained)
  },
  toString: () => "authorize()"
})

export type ExchangeVariant = "right" | "wrong-verifier" | "wrong-redirect" | "wrong-client" | "foreign-resource"

export const exchangeCommand = (knobs: Knobs, back: number, variant: ExchangeVariant, parallel: number): Command => ({
  check: (m) => m.codes.length > 0,
  run: async (m, real) => {
    const code = pick(m.codes, back)
    const target = real.target
    // A variant the server cannot be asked (no second client, no other resource, no audience rule) is sent right.
    const effective: ExchangeVariant =
      (variant === "wrong-client" && !target.hasOtherClient) || (variant === "foreign-resource" && (!real.profile.audience || target.options.foreignResource === null))
        ? "right" : variant
    const label = `exchange(code -${back}, ${effective}${effective === variant ? "" : ` (${variant} not possible here)`}${parallel > 1 ? `, ${parallel} in parallel` : ""})`
    const how = {
      client: effective === "wrong-client" ? "other" as const : "main" as const,
      verifier: effective === "wrong-verifier" ? randomBytes(32).toString("base64url") : code.verifier,
      redirectUri: effective === "wrong-redirect" ? `${target.redirectUri}/elsewhere` : target.redirectUri,
      foreignResource: effective === "foreign-resource"
    }
    const request: Request = {
      _tag: "Exchange", code: code.code, clientId: how.client === "other" ? target.otherClient!.client_id : target.client.client_id,
      redirectUri: how.redirectUri, verifier: how.verifier, foreignResource: how.foreignResource
    }
    const requests = Array.from({ length: parallel }, () => request)
    const answers = await exchangeWithOracle(real, knobs, sentLabel(label, back, m.codes.length), requests, () => target.exchange(code, how), parallel > 1 ? "code.race" : null)
    keepTokens(m, answers)
  },
  toString: () => `exchange(code -${back}, ${variant}${parallel > 1 ? `, ${parallel} in parallel` : ""})`
})

export type ScopeVariant = "keep" | "narrow" | "widen"

export const refreshCommand = (knobs: Knobs, back: number, scope: ScopeVariant, foreign: boolean, parallel: number): Command => {
  const label = `refresh(refresh token -${back}${scope === "keep" ? "" : `, ${scope} scope`}${foreign ? ", other resource" : ""}${parallel > 1 ? `, ${parallel} in parallel` : ""})`
  return {
    check: (m) => m.refresh.length > 0,
    run: async (m, real) => {
      const token = pick(m.refresh, back)
      const target = real.target
      const scopeValue = !real.profile.scopeOnRefresh || scope === "keep" ? null : scope === "narrow" ? knobs.narrowScope : knobs.widenScope
      const foreignResource = foreign && real.profile.audience && target.options.foreignResource !== null
      // Window guard: never present a spent token within a few seconds of its window's end, where the server's clock
      // and ours could disagree; wait until it is clearly outside.
      const window = real.profile.retryWindowMs
      if (window > 0) {
        for (const at of spentAt(real.worlds, token)) {
          const elapsed = Date.now() - at
          if (elapsed > window - 5_000 && elapsed < window + 1_500) await sleep(at + window + 1_500 - Date.now())
        }
      }
      const request: Request = { _tag: "Refresh", token, clientId: target.client.client_id, scope: scopeValue, foreignResource }
      const requests = Array.from({ length: parallel }, () => request)
      const answers = await exchangeWithOracle(real, knobs, sentLabel(label, back, m.refresh.length), requests, () => target.refresh(token, { scope: scopeValue, foreignResource }), parallel > 1 ? "refresh.race" : null)
      keepTokens(m, answers)
    },
    toString: () => label
  }
}

export type RevokeKind = "refresh" | "access" | "unknown"

export const revokeCommand = (knobs: Knobs, kind: RevokeKind, back: number, twice: boolean): Command => {
  const label = `revoke(${kind === "unknown" ? "an unknown token" : `${kind} token -${back}`}${twice ? ", twice" : ""})`
  return {
    check: (m) => kind === "unknown" || (kind === "refresh" ? m.refresh.length > 0 : m.access.length > 0),
    run: async (m, real) => {
      if (!real.target.hasRevocation) return
      const token = kind === "unknown" ? `unknown-${randomBytes(24).toString("base64url")}` : pick(kind === "refresh" ? m.refresh : m.access, back)
      const request: Request = { _tag: "Revoke", token, clientId: real.target.client.client_id }
      const sent = sentLabel(label, back, kind === "refresh" ? m.refresh.length : kind === "access" ? m.access.length : 0)
      for (let i = 0; i < (twice ? 2 : 1); i++)
        await exchangeWithOracle(real, knobs, i === 0 ? sent : `${sent} (again)`, [request], () => real.target.revoke(token), null)
    },
    toString: () => label
  }
}

export const probeCommand = (knobs: Knobs, back: number): Command => ({
  check: (m) => m.access.length > 0,
  run: async (m, real) => {
    if (real.target.options.probe === null) return
    const token = pick(m.access, back)
    await exchangeWithOracle(real, knobs, `probe(access token -${back % m.access.length})`, [{ _tag: "Probe", token }], () => real.target.probe(token), null)
  },
  toString: () => `probe(access token -${back})`
})

/** Waits out the retry window (and a margin), so that the spent tokens of now are presented outside it. */
export const waitCommand = (knobs: Knobs): Command => ({
  check: (m) => !knobs.quick && m.waits < 1,
  run: async (m, real) => {
    if (real.profile.retryWindowMs > 0) await sleep(real.profile.retryWindowMs + 2_000)
    real.log.push({ command: `wait(${(real.profile.retryWindowMs + 2_000) / 1000} s)`, wire: [], answers: [] })
    m.waits++
  },
  toString: () => "wait(window)"
})

/** The random commands, weighted towards what makes state: exchanges of the right code and refreshes. */
export const commandArbitraries = (knobs: Knobs): Array<fc.Arbitrary<Command>> => {
  // Mostly the newest tokens and the one just spent, where the rules differ; sometimes older ones.
  const back = fc.oneof({ arbitrary: fc.constant(0), weight: 3 }, { arbitrary: fc.constant(1), weight: 3 }, { arbitrary: fc.nat({ max: 5 }), weight: 2 })
  const parallel = fc.oneof(fc.constant(1), fc.constant(1), fc.integer({ min: 2, max: Math.max(2, knobs.maxParallel) }))
  const exchange = fc.tuple(back, fc.constantFrom<ExchangeVariant>("right", "right", "right", "wrong-verifier", "wrong-redirect", "wrong-client", "foreign-resource"), parallel)
    .map(([b, v, p]) => exchangeCommand(knobs, b, v, v === "right" ? p : 1))
  const refresh = fc.tuple(back, fc.constantFrom<ScopeVariant>("keep", "keep", "keep", "narrow", "widen"), fc.boolean(), parallel)
    .map(([b, s, f, p]) => refreshCommand(knobs, b, s, f && s === "keep" && b % 3 === 0, p))
  return [
    fc.constant(authorizeCommand(knobs)),
    exchange, exchange,
    refresh, refresh, refresh,
    fc.tuple(fc.constantFrom<RevokeKind>("refresh", "access", "unknown"), back, fc.boolean()).map(([k, b, t]) => revokeCommand(knobs, k, b, t)),
    back.map((b) => probeCommand(knobs, b)),
    back.map((b) => probeCommand(knobs, b)),
    fc.constant(waitCommand(knobs))
  ]
}

/**
 * The fixed walk over every rule, run before the random sequences: segments, each on a grant of its own (its first
 * command authorizes), so that one deviation does not hide the rules of the next segment.
 */
export const tour = (knobs: Knobs): ReadonlyArray<{ readonly name: string; readonly commands: ReadonlyArray<Command> }> => {
  const c = {
    authorize: authorizeCommand(knobs, Number.POSITIVE_INFINITY),
    exchange: (back: number, v: ExchangeVariant = "right", p = 1) => exchangeCommand(knobs, back, v, p),
    refresh: (back: number, s: ScopeVariant = "keep", f = false, p = 1) => refreshCommand(knobs, back, s, f, p),
    revoke: (k: RevokeKind, back = 0, twice = false) => revokeCommand(knobs, k, back, twice),
    probe: (back: number) => probeCommand(knobs, back)
  }
  const segment = (name: string, commands: ReadonlyArray<Command>) => ({ name, commands: [c.authorize, ...commands] })
  return [
    segment("rotation, scope and resource", [
      c.exchange(0), c.probe(0), c.refresh(0), c.probe(1), c.refresh(0, "narrow"), c.refresh(0, "widen"), c.refresh(0),
      c.refresh(0, "keep", true), c.probe(0), c.refresh(0)
    ]),
    segment("a spent token within the window", [
      c.exchange(0), c.refresh(0), c.refresh(1), c.probe(1), c.probe(0), c.refresh(0), c.refresh(1), c.probe(1), c.refresh(3), c.probe(0)
    ]),
    segment("the binding of a code, and its single use", [
      c.exchange(0, "wrong-verifier"), c.exchange(0, "wrong-redirect"), c.exchange(0, "wrong-client"), c.exchange(0, "foreign-resource"),
      c.exchange(0), c.exchange(0), c.probe(0), c.refresh(0)
    ]),
    segment("five failed exchanges", [...Array.from({ length: 5 }, () => c.exchange(0, "wrong-verifier")), c.exchange(0)]),
    segment("parallel exchanges of one code", [c.exchange(0, "right", knobs.maxParallel), c.probe(0), c.refresh(0)]),
    segment("parallel refreshes of one token", [
      c.exchange(0), c.refresh(0, "keep", false, knobs.maxParallel), ...Array.from({ length: knobs.maxParallel }, (_, i) => c.probe(i)), c.refresh(0)
    ]),
    segment("revocation", [
      c.exchange(0), c.refresh(0), c.revoke("access", 0, true), c.probe(0), c.probe(1), c.revoke("unknown"), c.revoke("refresh", 0),
      c.refresh(0), c.probe(1), c.revoke("refresh", 0)
    ]),
    // Outside the window (not in --quick): a spent token presented after the window ends the grant.
    ...(knobs.quick ? [] : [segment("a spent token after the window", [c.exchange(0), c.refresh(0), waitCommand(knobs), c.refresh(1), c.refresh(0), c.probe(0)])])
  ]
}

export interface SequenceOutcome {
  readonly deviation: Deviation | null
  /** The seed and path that replay the counterexample (random phase only). */
  readonly replay: { readonly seed: number; readonly path: string } | null
  readonly runs: number
  readonly commands: string | null
}

const freshReal = (target: Target, profile: Profile) => async (): Promise<{ model: Model; real: Real }> => {
  target.transcript.length = 0
  const model: Model = { codes: [], refresh: [], access: [], waits: 0 }
  const real: Real = { target, profile, worlds: [emptyWorld], log: [] }
  return { model, real }
}

/** The tour, segment by segment; the first deviation of each segment is kept. */
export const runTour = async (target: Target, profile: Profile, knobs: Knobs, log: (line: string) => void = () => {}): Promise<ReadonlyArray<SequenceOutcome>> => {
  const outcomes: Array<SequenceOutcome> = []
  for (const segment of tour(knobs)) {
    try {
      await fc.asyncModelRun(freshReal(target, profile), segment.commands)
      log(`tour: ${segment.name}: as predicted`)
    } catch (error) {
      if (!(error instanceof Deviation)) throw error
      log(`tour: ${segment.name}: DEVIATION ${error.rules.join(", ")}`)
      outcomes.push({ deviation: error, replay: null, runs: 1, commands: error.log.map((s) => s.command).join(", ") })
    }
  }
  return outcomes
}

/** Random sequences (each starting from a grant); a deviation is shrunk. */
export const runRandom = async (
  target: Target, profile: Profile, knobs: Knobs, options: { readonly runs: number; readonly seed?: number; readonly path?: string; readonly maxCommands: number; readonly timeLimitMs: number }
): Promise<SequenceOutcome> => {
  const property = fc.asyncProperty(
    fc.commands(commandArbitraries(knobs), { maxCommands: options.maxCommands, size: "medium" }),
    async (commands) => {
      // Every sequence starts from a grant: an authorization and its exchange, then the random commands.
      await fc.asyncModelRun(freshReal(target, profile), [authorizeCommand(knobs), exchangeCommand(knobs, 0, "right", 1), ...commands])
    }
  )
  const details = await fc.check(property, {
    numRuns: options.runs,
    ...(options.seed === undefined ? {} : { seed: options.seed }),
    ...(options.path === undefined ? {} : { path: options.path }),
    interruptAfterTimeLimit: options.timeLimitMs,
    markInterruptAsFailure: false
  })
  if (!details.failed) return { deviation: null, replay: null, runs: details.numRuns, commands: null }
  const error = details.errorInstance
  if (!(error instanceof Deviation)) throw error instanceof Error ? error : new Error(String(error))
  return {
    deviation: error,
    replay: { seed: details.seed, path: details.counterexamplePath ?? "" },
    runs: details.numRuns,
    commands: error.log.map((s) => s.command).join(", ")
  }
}
