// A write request queued the way the approvals lifecycle's own tests need it: without a tool call's facts (no app, no
// preview, the tool's name as its title), so its WriteQueued event makes an audit entry and no mail. Production
// queues through callTool, which always gives the call's facts: queueWriteRequest takes them as a required argument,
// so a caller cannot leave them out by accident and lose the requester's mail.
import { queueWriteRequest, type WriteRequestInput } from "../approvals/queueWriteRequest.ts"

export const queueWithoutCall = (input: WriteRequestInput) =>
  queueWriteRequest(input, { clientId: null, toolTitle: input.tool, summary: null })
