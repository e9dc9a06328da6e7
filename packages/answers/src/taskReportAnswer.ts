// A task's report as the REST API and the MCP tools answer it (docs/tasks.md, The report): the stored report keeps
// the facts (a queued change's request id); both surfaces render the change's `statusUrl` here, the request's
// `/api/v1/requests/<id>` (links.ts), because the core knows no HTTP. A report stored before, which kept its own
// statusUrl, is read through the same Schema (that field dropped) and answered with the link rendered alike.
import { TaskReport } from "@adgate/core"
import { Option, Schema } from "effect"
import { requestStatusPath } from "./links.ts"

const decodeReport = Schema.decodeUnknownOption(TaskReport)
const encodeReport = Schema.encodeSync(TaskReport)

/** `report` with every change's `statusUrl` (`/api/v1/requests/<id>`, null without one) after its requestId. */
export const taskReportAnswer = (report: Schema.Json | null): Schema.Json | null => {
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
        if (field === "requestId") answered["statusUrl"] = change.requestId === null ? null : requestStatusPath(change.requestId)
      }
      return answered
    })
  } as Schema.Json
}
