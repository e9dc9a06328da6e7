import { clientAddress, compileTrustedProxies } from "../../../packages/adapters-http/src/clientAddress.ts"
const trust = compileTrustedProxies([])
const N = 200000
for (let r = 0; r < 2; r++) { const t = process.cpuUsage(); for (let i = 0; i < N; i++) clientAddress("127.0.0.1", undefined, trust); const c = process.cpuUsage(t); console.log(((c.user + c.system) / N).toFixed(2), "µs") }
for (let r = 0; r < 2; r++) { const t = process.cpuUsage(); for (let i = 0; i < N; i++) clientAddress("::ffff:127.0.0.1", undefined, trust); const c = process.cpuUsage(t); console.log(((c.user + c.system) / N).toFixed(2), "µs") }
