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
 * The characters a writer escapes: those outside c-printable, and NEL, LINE SEPARATOR and
 * PARAGRAPH SEPARATOR, which YAML 1.2 allows as content but go-yaml (libyaml's scanner: kubectl,
 * kustomize, kpt) reads as line breaks: written as they are, `a: x<U+2028>y` is `a: x` and a new
 * line there, inside quotes a folded space.
 */
const WRITTEN_ESCAPED = new RegExp(`[${NOT_PRINTABLE_CLASS}\\x85\\u2028\\u2029]`);
const WRITTEN_ESCAPED_G = new RegExp(WRITTEN_ESCAPED.source, 'g');

/** Whether a string holds a character a writer escapes (not as it is in YAML: see WRITTEN_ESCAPED). */
export function needsEscapes(s: string): boolean {
  return WRITTEN_ESCAPED.test(s);
}

/**
 * JSON text (JSON.stringify's) with the characters a writer escapes written as `\uXXXX`:
 * JSON.stringify escapes C0 controls but leaves DEL, C1 controls, U+2028, U+2029 and
 * U+FFFE/U+FFFF as they are, which go-yaml then refuses or reads as line breaks. Such characters
 * can only stand inside its strings, where `\uXXXX` means the same in JSON and in a YAML
 * double-quoted scalar.
 */
export function escapeNotPrintable(json: string): string {
  if (!WRITTEN_ESCAPED.test(json)) return json;
  return json.replace(WRITTEN_ESCAPED_G, (c) => `\\u${c.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}`);
}

/** A string as a YAML double-quoted scalar (JSON's syntax) that any YAML reader takes alike: for strings holding characters a writer escapes. */
export function printableQuoted(s: string): string {
  return escapeNotPrintable(JSON.stringify(s));
}
