/**
 * Where a JSON text stops being JSON, and what is wrong there, in words of our own. V8's
 * JSON.parse messages quote up to ten characters either side of the error (`Unexpected token
 * ''', ..."password":'S3cr3tPw9"... is not valid JSON`) and only some carry a position: an item's
 * text may hold credentials, so a message about it is made from the position and the kind of
 * error only. One iterative pass (no recursion: any depth), run only once JSON.parse has failed.
 */
import { ws } from './json-scan.js';

/** The offset of the first error in `text` (text.length when it ends too soon), or -1 when it is JSON. */
export function jsonErrorAt(text: string): number {
  const n = text.length;
  /** the open containers, innermost last: 123 `{` or 91 `[` */
  const open: number[] = [];
  let i = ws(text, 0);
  for (;;) {
    // a value starts at i
    const c = text.charCodeAt(i);
    if (c === 123 || c === 91) {
      i = ws(text, i + 1);
      if (text.charCodeAt(i) === (c === 123 ? 125 : 93))
        i++; // empty: a whole value
      else {
        open.push(c);
        if (c === 123) {
          i = memberValueStart(text, i);
          if (i < 0) return -i - 1;
        }
        continue;
      }
    } else {
      const end = c === 34 ? stringEnd(text, i) : c === 45 || (c >= 48 && c <= 57) ? numberEnd(text, i) : literalEnd(text, i);
      if (end < 0) return -end - 1;
      i = end;
    }
    // after a whole value: close what it ends, or go on to the next one
    for (;;) {
      i = ws(text, i);
      if (open.length === 0) return i === n ? -1 : i;
      const top = open[open.length - 1]!;
      const ch = text.charCodeAt(i);
      if (ch === (top === 123 ? 125 : 93)) {
        open.pop();
        i++;
        continue;
      }
      if (ch !== 44) return i;
      i = ws(text, i + 1);
      if (top === 123) {
        i = memberValueStart(text, i);
        if (i < 0) return -i - 1;
      }
      break;
    }
  }
}

/** What is wrong at `offset` (from jsonErrorAt), named without quoting the text (a structural character at most). */
export function jsonErrorKind(text: string, offset: number): string {
  if (offset >= text.length) return 'the text ends before the JSON value does';
  const c = text[offset]!;
  if (c === "'") return 'a single quote where JSON needs a double-quoted string';
  if (c === '"' || text.charCodeAt(offset) < 32) return 'a string with a control character or without its closing quote';
  if ('{}[],:'.includes(c)) return `unexpected '${c}'`;
  if (c === '\\') return 'a bad escape in a string';
  return 'unexpected character (a value JSON does not have, or text after the value)';
}

/** After `{` or `,` in an object: `"key" :` and the white space after; the value's start, or -(error offset) - 1. */
function memberValueStart(text: string, i: number): number {
  if (text.charCodeAt(i) !== 34) return -i - 1;
  const end = stringEnd(text, i);
  if (end < 0) return end;
  const colon = ws(text, end);
  if (text.charCodeAt(colon) !== 58) return -colon - 1;
  return ws(text, colon + 1);
}

const HEX = /^[0-9a-fA-F]{4}$/;

/** End of the string at `i` (its `"`), or -(error offset) - 1. */
function stringEnd(text: string, i: number): number {
  for (let k = i + 1; k < text.length; k++) {
    const c = text.charCodeAt(k);
    if (c === 34) return k + 1;
    if (c < 32) return -k - 1;
    if (c === 92) {
      const e = text[k + 1];
      if (e === 'u') {
        if (!HEX.test(text.slice(k + 2, k + 6))) return -k - 1;
        k += 5;
      } else if (e !== undefined && '"\\/bfnrt'.includes(e)) k++;
      else return -k - 1;
    }
  }
  return -text.length - 1;
}

const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;

/** End of the number at `i`, or -(error offset) - 1. */
function numberEnd(text: string, i: number): number {
  NUMBER.lastIndex = i;
  if (!NUMBER.test(text)) return -i - 1;
  return NUMBER.lastIndex;
}

/** End of `true`, `false` or `null` at `i`, or -(error offset) - 1. */
function literalEnd(text: string, i: number): number {
  for (const word of ['true', 'false', 'null']) if (text.startsWith(word, i)) return i + word.length;
  return -i - 1;
}
