// What the server and the CLI say on the terminal about a failure: a URL's password (DATABASE_URL, SMTP_URL) never
// reaches it, whatever a driver put into its message.
export const withoutPasswords = (text: string): string => text.replace(/\/\/([^/:@\s]*):[^@\s]*@/g, "//$1:***@")
