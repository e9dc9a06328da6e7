// Bench-only probe entry (round 11): tokenFloor.mjs without effect/sql's per-statement compile cache entries
// (probes/skipStatementCache.mjs).
import "./probes/skipStatementCache.mjs"
import "./tokenFloor.mjs"
