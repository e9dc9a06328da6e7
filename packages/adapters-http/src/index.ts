// @adgate/adapters-http: the HTTP application (OAuth endpoints, discovery, people pages), its server and the
// adapters that live on HTTP (scrypt passwords, https metadata-document fetcher).
export { HttpApp, makeHttpApp, HealthRoutes } from "./HttpApp.ts"
export { serveHttp, type ServeOptions } from "./serve.ts"
export { TrustedProxies, clientAddress, compileTrustedProxies, countedAddress } from "./clientAddress.ts"
export { ClientAddressMiddleware } from "./ClientAddressMiddleware.ts"
export { SecurityMiddleware, RequestId, contentSecurityPolicy, isCrossSite, maxBodyBytes } from "./security.ts"
export { People, type Person, type PeopleShape, type PeoplePorts } from "./people/People.ts"
export { PasswordHasherScrypt, makePasswordHasherScrypt } from "./people/PasswordHasherScrypt.ts"
export { MetadataDocumentFetcherHttps } from "./cimd/MetadataDocumentFetcherHttps.ts"
export { oauthAnswer, oauthErrorTable, type OAuthEndpointFailure, type OAuthJsonError } from "./oauth/errors.ts"
export { appConnectedMail, changeWaitingMail, mailHtml, mailWords, MailWordsHttp } from "./mail/mailWords.ts"
export { DevelopmentMailbox, type DevelopmentMailboxShape, MailboxRoutes } from "./mail/MailboxRoutes.ts"
export { absolute, pagePaths } from "./pages/pagePaths.ts"
