// Bench-only probe entry (round 12): tokenFloorBisect.mjs with probes/countWeak.mjs's counters installed first.
import "./probes/countWeak.mjs"
import "./tokenFloorBisect.mjs"
