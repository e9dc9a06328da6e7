// What costs credits and when (spec §Limits: Credits, §REST status codes 402; docs/decisions.md, Credits): a tool call
// costs the tool's `credits`, a task `taskCredits`; listing and describing are free. A call is charged only when the
// platform ran it and accepted it (2xx); a call the platform refused (4xx) or failed (5xx), or could not be reached,
// costs nothing. A queued write is charged when it executes, not when it is queued.

/** A task costs this much when it starts; each tool call it makes is charged like any other call. */
export const taskCredits = 5

/** Below this balance, every charged answer carries a notice (spec: "a low balance adds a line to notices"). */
export const lowCreditsThreshold = 50

/** Whether a platform answer is charged: it ran and was accepted. */
export const isChargedAnswer = (providerStatus: number): boolean => providerStatus >= 200 && providerStatus < 300

/** The `notices` line for a balance, or null when it is not low. */
export const lowCreditsNotice = (left: number): string | null =>
  left < lowCreditsThreshold
    ? `Credits are low: ${left} left in this workspace. Calls are refused (402) when the balance does not cover them.`
    : null
