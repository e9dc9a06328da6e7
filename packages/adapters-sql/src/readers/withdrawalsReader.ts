// The withdrawals reader (docs/decisions.md, Write requests): a connection ended or an API key revoked → the write
// requests it proposed that still wait for a person are withdrawn (rejected, naming the ended credential), each once
// however many processes drain. Which requests and how: core's withdrawForEndedRequesters.
import { withdrawForEndedRequesters } from "@adgate/core"
import type { OutboxReader } from "./OutboxReader.ts"

export const withdrawalsReader = {
  name: "withdrawals",
  handle: withdrawForEndedRequesters
} satisfies OutboxReader<unknown, unknown>
