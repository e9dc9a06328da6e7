// How long the pipeline waits for a platform's answer (the Platforms port's deadline), and the call made within it.
import { Context, Effect } from "effect"
import { PlatformUnavailable, type PlatformsShape, type ToolCall } from "./Platforms.ts"

/**
 * How long the pipeline waits for a platform to answer a call before it treats the platform as unreachable: a
 * backstop over the adapter's own timeouts, so a platform that never answers cannot hold a request, the workspace's
 * write lock and a database connection. Past it the call fails PlatformUnavailable (503, nothing charged); its
 * retry carries the same idempotency token, so a change the platform applied late is not applied twice.
 */
export const PlatformCallDeadlineMs = Context.Reference<number>("core/ports/PlatformCallDeadlineMs", { defaultValue: () => 30_000 })

/** `platforms.execute(call)` within PlatformCallDeadlineMs (interruptible even inside an uninterruptible region). */
export const executeWithinDeadline = (platforms: PlatformsShape, call: ToolCall) =>
  Effect.flatMap(PlatformCallDeadlineMs, (ms) =>
    Effect.interruptible(platforms.execute(call)).pipe(
      Effect.timeoutOrElse({
        duration: ms,
        orElse: () => Effect.fail(new PlatformUnavailable({ platform: call.tool.family, message: `no answer within ${ms} ms` }))
      })
    ))
