/** Type guards for plain data read from items (`obj.data`, `obj.get(...)`). */

/** A YAML mapping as plain data: an object that is neither null nor an array. */
export function isRecord(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}
