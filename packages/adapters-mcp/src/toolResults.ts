// What a tools/call answers (MCP 2025-06-18 §Tools, "Error handling"; spec §POST /tools/{name}): the platform's
// result as structured content, a queued write as a result naming the request and where to follow it, and every
// refusal as a tool result with `isError` carrying the same `{error, message}` REST gives (core toolRefusalCodes).
import { type ToolCallAnswer, type ToolCallRefusal, toolRefusalCodes, toolRefusalMessage } from "@adgate/core"
import type { CallToolResult } from "@modelcontextprotocol/server"
import { logIfOutage as logIfOutageOn, requestStatusPath } from "@adgate/answers"

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value)

/** A refusal: `{error, message}` plus what the caller needs to act (the scope to ask for, credits left …). */
export const refusalResult = (refusal: ToolCallRefusal): CallToolResult => {
  const message = toolRefusalMessage(refusal)
  const { _tag, ...details } = refusal as unknown as Record<string, unknown>
  const body = { error: toolRefusalCodes[refusal._tag], message, ...detailsOf(details) }
  return { content: [{ type: "text", text: JSON.stringify(body) }], structuredContent: body, isError: true }
}

// Error instances carry `stack`/`message`/`name`; only the schema fields are the caller's to read.
const detailsOf = (details: Record<string, unknown>) => {
  const { stack: _s, message: _m, name: _n, cause: _c, ...fields } = details
  return fields
}

/** A result of a workspace tool or a run platform tool: JSON text, and the object as structured content. */
export const jsonResult = (value: unknown): CallToolResult => ({
  content: [{ type: "text", text: JSON.stringify(value) }],
  ...(isObject(value) ? { structuredContent: value } : {})
})

/**
 * A call's answer. A queued write names its request id, its status URL and that nothing changed yet (spec §REST
 * status codes 202), and how to follow it here (the get_write_request tool).
 */
export const answerResult = (answer: ToolCallAnswer): CallToolResult => {
  if (answer._tag === "Ran") {
    return {
      content: [
        { type: "text", text: JSON.stringify(answer.result) },
        ...answer.notices.map((notice) => ({ type: "text" as const, text: notice }))
      ],
      ...(isObject(answer.result) ? { structuredContent: answer.result } : {})
    }
  }
  const queued = {
    queued: true,
    requestId: answer.requestId,
    status: answer.status,
    reason: answer.reason,
    statusUrl: requestStatusPath(answer.requestId),
    message: queuedMessage(answer.requestId, answer.reason)
  }
  return { content: [{ type: "text", text: JSON.stringify(queued) }], structuredContent: queued }
}

export const queuedMessage = (requestId: string, reason: "approval" | "person_decision") =>
  `Nothing has changed yet: this write waits for a workspace admin or editor to approve it under Write approvals ` +
  `(request ${requestId}${reason === "person_decision" ? ", a change that always needs a person" : ""}). ` +
  `Follow it with get_write_request; unanswered, it expires in 7 days.`

/** The WARN line of a refusal that is an outage (@adgate/answers logIfOutage); nothing for any other refusal. */
export const logIfOutage = (refusal: { readonly _tag: string }) => logIfOutageOn("mcp", refusal)
