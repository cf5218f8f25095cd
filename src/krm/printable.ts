/**
 * The characters YAML allows in a stream (c-printable, YAML 1.2 §5.1; YAML 1.1 the same) and
 * what the runtime does with the others: refused when read (both readers, and the input as a
 * whole: input-bytes.ts), escaped when written. go-yaml (kubectl, kustomize, kpt) refuses a
 * file that holds one anywhere ("control characters are not allowed"), so the runtime neither
 * accepts one nor writes one: inside a double-quoted string such a character is an escape
 * (`"\0"`, `"\x07"`, `"\u007F"`), content like any other.
 */

/**
 * The characters outside c-printable, as the inside of a regular-expression class (for readers
 * that look for more in the same scan, fast-yaml.ts): C0 controls but tab, LF and CR; DEL; C1
 * controls but NEL; U+FFFE and U+FFFF.
 */
export const NOT_PRINTABLE_CLASS = '\\x00-\\x08\\x0B\\x0C\\x0E-\\x1F\\x7F-\\x84\\x86-\\x9F\\uFFFE\\uFFFF';
/** A character outside c-printable. */
export const NOT_PRINTABLE = new RegExp(`[${NOT_PRINTABLE_CLASS}]`);
const NOT_PRINTABLE_G = new RegExp(NOT_PRINTABLE.source, 'g');

/** What is wrong with a character NOT_PRINTABLE matched, and the fix. */
export function notPrintableDetail(ch: string): string {
  const code = ch.charCodeAt(0);
  const name = code === 0 ? 'NUL, a control character' : code < 0xa0 ? 'a control character' : 'a noncharacter';
  const hex = code.toString(16).toUpperCase();
  const escaped = code <= 0xff ? `\\x${hex.padStart(2, '0')}` : `\\u${hex}`;
  return [
    `U+${hex.padStart(4, '0')} (${name}) is not allowed in YAML (kubectl, kustomize and kpt refuse it too): `,
    `remove it, or write it escaped in a double-quoted string ("${escaped}")`,
  ].join('');
}

/**
 * JSON text (JSON.stringify's) with the characters YAML does not allow written as `\uXXXX`:
 * JSON.stringify escapes C0 controls but leaves DEL, C1 controls and U+FFFE/U+FFFF as they
 * are, which go-yaml then refuses. Such characters can only stand inside its strings, where
 * `\uXXXX` means the same in JSON and in a YAML double-quoted scalar.
 */
export function escapeNotPrintable(json: string): string {
  if (!NOT_PRINTABLE.test(json)) return json;
  return json.replace(NOT_PRINTABLE_G, (c) => `\\u${c.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}`);
}

/** A string as a YAML double-quoted scalar (JSON's syntax) that any YAML reader takes: for strings holding characters YAML does not allow. */
export function printableQuoted(s: string): string {
  return escapeNotPrintable(JSON.stringify(s));
}
