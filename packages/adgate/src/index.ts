// adgate, embedded in a host (docs/embedding.md). Two entries in one package:
// - createAdgate(options): a fetch handler, a Node request listener, start() and stop(), for any host;
// - the layers, for hosts written with Effect: adgatePorts (the stores and ports, the host's in place of the
//   defaults), adgateRoutes (every route adgate owns), adgatePolicy, adgateBackground (the background work).
export { createAdgate, type Adgate, type AdgateOptions, type AdgateServices } from "./createAdgate.ts"
export { adgatePaths, ownsPath } from "./paths.ts"
export type { HostDirectory, HostMail, HostPlatforms, HostSignInOptions, HostUser, HostWorkspace } from "./hostPorts.ts"
export { directoryReads, mailDeliveryLayer, platformsLayer, signInLayer } from "./hostPorts.ts"
export { adgateDatabase, adgatePorts, type AdgateDatabase, type AdgatePortsOptions, type HostPortLayers } from "./adgatePorts.ts"
export { adgateBackground, adgateMetadataFetcher, adgatePolicy, adgateRoutes, type AdgatePolicy } from "./layers.ts"
export { MailDeliveryLog, MailSenderSchedule, sendPendingMail, viaLog, type Deliver } from "./MailSender.ts"
export { TaskRunner, taskRunnerPorts } from "./taskRunner.ts"
export { bufferedLogfmt, formatLogfmtOneMessage, LogfmtLogger, oneMessage } from "./LogfmtLogger.ts"
export { withoutPasswords } from "./withoutPasswords.ts"
// The host ports' contracts and the types their values carry (core).
export {
  type Account, Directory, type DirectoryShape, DirectoryUnavailable, type HostSignedIn, MailDelivery, type MailDeliveryShape,
  type MailMessage, MailUndelivered, type Membership, type PlatformAnswer, type PlatformFamily, Platforms, type PlatformsShape,
  PlatformUnavailable, type Plan, type ProposedChange, type Role, SignIn, type SignInRequest, type SignInShape, SignInUnavailable,
  type Tool, type ToolCall, type User, type UserId, type Workspace, type WorkspaceId
} from "@adgate/core"
