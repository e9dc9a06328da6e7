// @adgate/server: the composition of the server process, for end-to-end tests that start it in-process.
export { serverLayer } from "./main.ts"
export { loadAppConfig, type AppConfig } from "./config.ts"
export { appPorts, appDatabase } from "./appPorts.ts"
export { seedOnFirstStart, demoCredits } from "./seed.ts"
export { MailSender, sendPendingMail } from "./MailSender.ts"
export * from "./errors.ts"
