// Google APIs' error shape (google.rpc.Status over JSON: AIP-193), shared by the Google Ads and GA4 sandboxes:
// `{ error: { code, message, status, details } }`, with the Ads API's GoogleAdsFailure in `details`.
import type { PlatformAnswer } from "@adgate/core"
import type { Schema } from "effect"

export const googleError = (code: number, status: string, message: string, details: ReadonlyArray<Schema.Json> = []): PlatformAnswer => ({
  providerStatus: code,
  body: { error: { code, message, status, details: [...details] } }
})

/** An Ads API refusal: 400 INVALID_ARGUMENT with one GoogleAdsError naming the enum that refused. */
export const adsFailure = (errorCode: Record<string, string>, message: string, requestId: string): PlatformAnswer =>
  googleError(400, "INVALID_ARGUMENT", "Request contains an invalid argument.", [{
    "@type": "type.googleapis.com/google.ads.googleads.v17.errors.GoogleAdsFailure",
    errors: [{ errorCode, message }],
    requestId
  }])

export const googleUnauthenticated: PlatformAnswer = googleError(
  401,
  "UNAUTHENTICATED",
  "Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential."
)

export const googleNotFound = (message = "Requested entity was not found."): PlatformAnswer => googleError(404, "NOT_FOUND", message)
