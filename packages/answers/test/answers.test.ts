// What both surfaces render, read alone: the links in the spec's relative form, ISO 8601 times, matrix parameters
// found in the path only, and an outage named by its port, never by its message (it may quote input).
import { describe, expect, it } from "vitest"
import { DirectoryUnavailable, PlatformUnavailable, StoreUnavailable, ToolNotFound } from "@adgate/core"
import { hasMatrixParameters, isoTime, isoTimeOrNull, outageOf, requestStatusPath, taskPath } from "../src/index.ts"

describe("links and times", () => {
  it("a request's statusUrl and a task's url are the spec's relative paths, the id percent-encoded", () => {
    expect(requestStatusPath("rwq_abc")).toBe("/api/v1/requests/rwq_abc")
    expect(taskPath("task_a/b")).toBe("/api/v1/tasks/task_a%2Fb")
  })

  it("times are ISO 8601 in UTC; a time not there yet is null", () => {
    expect(isoTime(Date.UTC(2026, 10, 27, 20, 0, 0))).toBe("2026-11-27T20:00:00.000Z")
    expect(isoTimeOrNull(null)).toBeNull()
  })
})

describe("matrix parameters", () => {
  it("a ; in the path is one; a ; in the query or fragment is not", () => {
    expect(hasMatrixParameters("/api/v1/me;x")).toBe(true)
    expect(hasMatrixParameters("/api/v1/tools/gads__pause_campaign;evil?x=1")).toBe(true)
    expect(hasMatrixParameters("/api/v1/tools?q=a;b")).toBe(false)
    expect(hasMatrixParameters("/api/v1/me#a;b")).toBe(false)
    expect(hasMatrixParameters("/api/v1/tools/a%3Bb")).toBe(false)
  })
})

describe("outages", () => {
  it("a store, the directory and the platforms are named by their port; any other refusal is not an outage", () => {
    expect(outageOf(new StoreUnavailable({ operation: "WriteRequestStore.find", message: "secret-looking text" })))
      .toEqual({ port: "WriteRequestStore", operation: "WriteRequestStore.find" })
    expect(outageOf(new DirectoryUnavailable({ message: "x" }))).toEqual({ port: "Directory", operation: "Directory" })
    expect(outageOf(new PlatformUnavailable({ platform: "gads", message: "x" }))).toEqual({ port: "Platforms", operation: "Platforms" })
    expect(outageOf(new ToolNotFound({ name: "x" }))).toBeNull()
    expect(JSON.stringify(outageOf(new StoreUnavailable({ operation: "A.b", message: "ap_live_secret" })))).not.toContain("secret")
  })
})
