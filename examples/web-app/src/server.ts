// Runs the web app on Node: `PORT=8080 DATABASE_URL=postgres://… node src/server.ts` (PGlite in ./data without it).
import { serve } from "@hono/node-server"
import { makeData } from "./data.ts"
import { makeWebApp } from "./app.ts"

const port = Number(process.env["PORT"] ?? 8080)
const origin = process.env["ORIGIN"] ?? `http://localhost:${port}`
const data = makeData()
data.addUser("u-ada", "ada@acme.example", "Ada", process.env["DEMO_PASSWORD"] ?? "change me, please")
data.addWorkspace({ id: "w-acme", name: "Acme", plan: "paid" }, { "u-ada": "admin" })
data.campaigns.set("c-brand", { id: "c-brand", workspaceId: "w-acme", name: "Brand", dailyBudget: 100, status: "ACTIVE" })

const { app, adgate } = makeWebApp(data, origin, process.env["DATABASE_URL"] ? { postgres: process.env["DATABASE_URL"] } : { pglite: "./data" })
await adgate.start()
// The app sells its workspaces credits; adgate's ledger holds the balance each tool call is charged against.
await adgate.setCredits("w-acme", 1000, "opening balance")
const server = serve({ fetch: app.fetch, port })
const stop = async () => {
  server.close()
  await adgate.stop()
}
process.once("SIGINT", stop)
process.once("SIGTERM", stop)
console.log(`Acme Ads on ${origin}`)
