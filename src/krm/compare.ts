/**
 * String order for anything written to output: by UTF-16 code unit, the same on every machine.
 * (`localeCompare` depends on the locale and ICU data, and its first call costs ~20 ms.)
 */
export function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
