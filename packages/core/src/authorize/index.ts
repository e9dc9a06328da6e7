// The authorize module's public face: the authorization request, the consent page and its decision.
// Other packages import it through @adgate/core; other core folders import only the files it exports.
export * from "./ConsentPage.ts"
export * from "./errors.ts"
export * from "./authorizationResponseUrl.ts"
export * from "./validateAuthorizationRequest.ts"
export * from "./connectedPlatforms.ts"
export * from "./consentOptions.ts"
export * from "./transitionConsentPage.ts"
export * from "./openConsentPage.ts"
export * from "./decideConsent.ts"
