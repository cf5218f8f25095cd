/**
 * The characters the runtime neither reads nor writes as they are, in one place:
 * - those outside c-printable (YAML 1.2 §5.1; YAML 1.1 the same): go-yaml (kubectl, kustomize,
 *   kpt) refuses a file that holds one anywhere ("control characters are not allowed");
 * - NEL, LINE SEPARATOR and PARAGRAPH SEPARATOR: YAML 1.2 readers (this runtime's, JSON schema
 *   tools) take them as content, go-yaml (libyaml's scanner) as line breaks, so a file holding
 *   one means different things to them (`a: x<U+2028>y` is `a: x` and a new line to kubectl).
 * Refused when read (both readers, and the input as a whole: input-bytes.ts), escaped when
 * written: inside a double-quoted string such a character is an escape (`"\0"`, `"\x07"`,
 * `"\u2028"`), content like any other, which every reader takes alike.
 */

/**
 * The characters outside c-printable, as the inside of a regular-expression class (for readers
 * that look for more in the same scan, fast-yaml.ts): C0 controls but tab, LF and CR; DEL; C1
 * controls but NEL; U+FFFE and U+FFFF.
 */
export const NOT_PRINTABLE_CLASS = '\\x00-\\x08\\x0B\\x0C\\x0E-\\x1F\\x7F-\\x84\\x86-\\x9F\\uFFFE\\uFFFF';
/** The characters go-yaml reads as line breaks and YAML 1.2 readers as content: NEL, U+2028, U+2029. */
const GO_LINE_BREAK_CLASS = '\\x85\\u2028\\u2029';
/** The characters neither read nor written as they are (see above), as the inside of a class. */
export const UNSAFE_CLASS = NOT_PRINTABLE_CLASS + GO_LINE_BREAK_CLASS;
/** A character neither read nor written as it is. */
export const UNSAFE = new RegExp(`[${UNSAFE_CLASS}]`);
const UNSAFE_G = new RegExp(UNSAFE.source, 'g');

/** What is wrong with a character UNSAFE matched, and the fix. */
export function notPrintableDetail(ch: string): string {
  const code = ch.charCodeAt(0);
  const hex = code.toString(16).toUpperCase();
  const escaped = code <= 0xff ? `\\x${hex.padStart(2, '0')}` : `\\u${hex}`;
  const fix = `remove it, or write it escaped in a double-quoted string ("${escaped}")`;
  const breakName = code === 0x85 ? 'NEL' : code === 0x2028 ? 'LINE SEPARATOR' : code === 0x2029 ? 'PARAGRAPH SEPARATOR' : undefined;
  if (breakName)
    return [
      `U+${hex.padStart(4, '0')} (${breakName}) is a line break to kubectl, kustomize and kpt (go-yaml) and a character to YAML 1.2 readers: `,
      `the file means different things to them; ${fix}`,
    ].join('');
  const name = code === 0 ? 'NUL, a control character' : code < 0xa0 ? 'a control character' : 'a noncharacter';
  return `U+${hex.padStart(4, '0')} (${name}) is not allowed in YAML (kubectl, kustomize and kpt refuse it too): ${fix}`;
}

/** Whether a string holds a character a writer escapes (UNSAFE). */
export function needsEscapes(s: string): boolean {
  return UNSAFE.test(s);
}

/**
 * JSON text (JSON.stringify's) with the characters a writer escapes written as `\uXXXX`:
 * JSON.stringify escapes C0 controls but leaves DEL, C1 controls, U+2028, U+2029 and
 * U+FFFE/U+FFFF as they are, which go-yaml then refuses or reads as line breaks. Such characters
 * can only stand inside its strings, where `\uXXXX` means the same in JSON and in a YAML
 * double-quoted scalar.
 */
export function escapeNotPrintable(json: string): string {
  if (!UNSAFE.test(json)) return json;
  return json.replace(UNSAFE_G, (c) => `\\u${c.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}`);
}

/** A string as a YAML double-quoted scalar (JSON's syntax) that any YAML reader takes alike: for strings holding characters a writer escapes. */
export function printableQuoted(s: string): string {
  return escapeNotPrintable(JSON.stringify(s));
}
