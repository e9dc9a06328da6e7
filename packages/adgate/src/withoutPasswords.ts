// What adgate says about a failure (createAdgate's start, the server's and the CLI's terminal lines): a URL's password
// (DATABASE_URL, SMTP_URL) never reaches it, whatever a driver put into its message.
export const withoutPasswords = (text: string): string => text.replace(/\/\/([^/:@\s]*):[^@\s]*@/g, "//$1:***@")
