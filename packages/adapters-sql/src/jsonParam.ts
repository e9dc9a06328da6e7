// A nullable JSON value as a statement parameter for a jsonb column: SQL NULL for null, JSON text otherwise
// (a plain object cannot be a parameter: the driver cannot infer its type).
export const jsonOrNull = (value: unknown): string | null => (value === null ? null : JSON.stringify(value))
