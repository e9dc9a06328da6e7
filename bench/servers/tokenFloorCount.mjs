// Bench-only probe entry (round 11): tokenFloor.mjs with probes/countWeak.mjs's counters installed first.
import "./probes/countWeak.mjs"
import "./tokenFloor.mjs"
