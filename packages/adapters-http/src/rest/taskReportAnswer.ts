// A task's report as the REST API and the MCP tools answer it (docs/tasks.md, The report): the stored report keeps
// the facts (a queued change's request id); each answering surface renders the change's `statusUrl`, the request's
// GET /api/v1/requests/{id} on this server, because the core knows no HTTP. A report stored before, which kept its
// own statusUrl, is read through the same Schema (that field dropped) and answered with the link rendered alike.
import { TaskReport } from "@adgate/core"
import { Option, Schema } from "effect"

const decodeReport = Schema.decodeUnknownOption(TaskReport)
const encodeReport = Schema.encodeSync(TaskReport)

/** `report` with every change's `statusUrl` (`statusUrlOf(requestId)`, null without one) after its requestId. */
export const taskReportAnswer = (report: Schema.Json | null, statusUrlOf: (requestId: string) => string): Schema.Json | null => {
  if (report === null) return null
  const decoded = decodeReport(report)
  // A report that does not read is answered as stored: what is there is still the task's story.
  if (Option.isNone(decoded)) return report
  const encoded = encodeReport(decoded.value)
  return {
    ...encoded,
    changes: encoded.changes.map((change) => {
      const answered: { [field: string]: Schema.Json } = {}
      for (const [field, value] of Object.entries(change)) {
        answered[field] = value
        if (field === "requestId") answered["statusUrl"] = change.requestId === null ? null : statusUrlOf(change.requestId)
      }
      return answered
    })
  } as Schema.Json
}
