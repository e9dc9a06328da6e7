import { Agent, request } from "undici"
const [,, port = "18990", secs = "10", path = "/oauth/token"] = process.argv
const agent = new Agent({ connections: 16 })
let n = 0, stop = false
setTimeout(() => stop = true, Number(secs) * 1000)
const body = "grant_type=refresh_token&refresh_token=abcdefghijklmnopqrstuvwxyz0123456789ABCDEFG&client_id=cl_abcdefghijklmnop&resource=http%3A%2F%2F127.0.0.1%3A18801%2Fapi%2Fmcp"
await Promise.all(Array.from({ length: 16 }, async () => { while (!stop) { const r = await request(`http://127.0.0.1:${port}${path}`, { method: "POST", dispatcher: agent, body, headers: { "content-type": "application/x-www-form-urlencoded", accept: "application/json" } }); await r.body.text(); n++ } }))
console.log(JSON.stringify({ requests: n }))
process.exit(0)
