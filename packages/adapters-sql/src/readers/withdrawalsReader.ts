// The withdrawals reader (docs/decisions.md, Write requests): a connection ended or an API key revoked → the write
// requests it proposed that still wait for a person are withdrawn (rejected, naming the ended credential), each once
// however many processes drain. Which events and which requests: core's withdrawalsSubscription and
// withdrawForEndedRequesters.
import { withdrawalsSubscription, withdrawForEndedRequesters } from "@adgate/core"
import { outboxReader } from "./OutboxReader.ts"

export const withdrawalsReader = outboxReader(withdrawalsSubscription, withdrawForEndedRequesters)
