/**
 * Line-level edits of block YAML: find the top-level sections of a document and set a scalar
 * at a mapping path, touching only the lines involved. Everything else in the item keeps its
 * bytes. Returns `undefined` when the layout is not plain block mappings along the path; the
 * caller then edits through the `yaml` Document API.
 */
import { fastLoad } from './fast-yaml.js';
import { needsEscapes } from './printable.js';

interface L {
  indent: number;
  text: string;
  skip: boolean;
}

function toLines(body: string): L[] {
  const raw = body.split('\n');
  if (raw[raw.length - 1] === '') raw.pop();
  return raw.map((l) => {
    let i = 0;
    while (l.charCodeAt(i) === 32) i++;
    const text = l.slice(i);
    return { indent: i, text, skip: text === '' || text[0] === '#' };
  });
}

/** Key of a `key: ...` line (plain or simply quoted), and the text after the colon. */
function splitKeyLine(text: string): [string, string] | undefined {
  const c = text[0];
  if (c === '"' || c === "'") {
    const v = fastLoad(text);
    if (v === undefined || v === null || typeof v !== 'object' || Array.isArray(v)) return undefined;
    const keys = Object.keys(v);
    if (keys.length !== 1) return undefined;
    const end = text.indexOf(c, 1);
    // an escaped quote inside the key ('it''s', "a\"b"): the simple scan below would cut it short
    if ((c === "'" && text[end + 1] === "'") || (c === '"' && text.slice(1, end).includes('\\'))) return undefined;
    return [keys[0]!, text.slice(end + 2).trim()];
  }
  const m = /^([^\s#:'"&*!|>{}[\],?-][^:]*?|-[^\s:][^:]*?):(?: +(.*))?$/.exec(text);
  if (!m) return undefined;
  return [m[1]!.trimEnd(), (m[2] ?? '').trim()];
}

/** Quotes a string for a single-line block value; `undefined` when it needs the full emitter. */
export function scalarText(value: string | number | boolean): string | undefined {
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : undefined;
  if (typeof value === 'boolean') return String(value);
  // control characters, and what go-yaml reads as a line break (NEL, U+2028, U+2029): escaped by yaml's writer
  if (/[\u0000-\u001f\u007f]/.test(value) || needsEscapes(value)) return undefined;
  if (/^[A-Za-z_/][A-Za-z0-9_./@=-]*$/.test(value)) {
    const read = fastLoad(`k: ${value}\n`) as { k: unknown } | undefined;
    if (read !== undefined && read.k === value) return value;
  }
  return "'" + value.replace(/'/g, "''") + "'";
}

/** Why an edit cannot be made line-wise (the caller edits through the `yaml` Document then, and says why). */
export interface Refused {
  refused: string;
}

const no = (why: string): Refused => ({ refused: why });

/** The dotted path of a mapping being searched (`the item` at the top). */
const fieldAt = (path: readonly string[], depth: number): string => (depth === 0 ? 'the item' : path.slice(0, depth).join('.'));

/**
 * Sets `path` (mapping keys only) to the already-quoted scalar `valueText` in the document
 * `body`. Creates missing mappings along the path. Returns the new body, or why the layout does
 * not allow a line-wise edit.
 */
export function setScalarInText(body: string, path: string[], valueText: string): string | Refused {
  if (/\r/.test(body)) {
    // CRLF throughout (Windows editors): edited as LF, written back with CRLF; any other CR is left to yaml
    if (/(?:^|[^\r])\n/.test(body)) return no('its lines end in both LF and CRLF');
    const lf = body.replace(/\r\n/g, '\n');
    if (/\r/.test(lf)) return no('its lines end in bare CRs (old Mac)');
    const next = setScalarInLfText(lf, path, valueText);
    return typeof next === 'string' ? next.replace(/\n/g, '\r\n') : next;
  }
  return setScalarInLfText(body, path, valueText);
}

function setScalarInLfText(body: string, path: string[], valueText: string): string | Refused {
  const lines = toLines(body);
  // region of the mapping being searched: [start, end), with its entries at `indent`
  let start = 0;
  let end = lines.length;
  let indent = 0;
  let parentLine = -1;
  for (let depth = 0; depth < path.length; depth++) {
    const seg = path[depth]!;
    // entries' indentation: the first non-skip line of the region
    let first = -1;
    for (let k = start; k < end; k++)
      if (!lines[k]!.skip) {
        first = k;
        break;
      }
    if (first >= 0) indent = lines[first]!.indent;
    else if (depth > 0) indent = lines[parentLine]!.indent + 2;
    let found = -1;
    let lastEntryEnd = start;
    // a block scalar in the region may end in lines that look like comments or blank lines:
    // inserting "after the last entry" could then land inside it
    let hasBlockScalar = false;
    for (let k = start; k < end; k++) {
      const l = lines[k]!;
      if (l.skip) continue;
      if (/(?:^|:\s|^-\s)\s*[|>][-+0-9]*\s*(?:#.*)?$/.test(l.text)) hasBlockScalar = true;
      if (l.indent < indent) return no(`${fieldAt(path, depth)} is indented unevenly`);
      if (l.indent > indent) {
        lastEntryEnd = k + 1;
        continue;
      }
      if (l.text.startsWith('- ') || l.text === '-') {
        // kyaml's compact style: a sequence at the keys' indentation belongs to the key above
        if (k === first) return no(`${fieldAt(path, depth)} is a list`);
        lastEntryEnd = k + 1;
        continue;
      }
      const kv = splitKeyLine(l.text);
      if (!kv) return no(`a key of ${fieldAt(path, depth)} is no plain \`key:\` line (flow style, an anchor, a tag, an escaped key)`);
      lastEntryEnd = k + 1;
      if (kv[0] === seg) {
        // `on:`, `n:`, `1:` are a boolean, a number, not the string key `on` (YAML 1.1, as kubectl reads them)
        const same = keyReadsAs(l.text, seg);
        if (same === undefined) return no(`the key ${seg} of ${fieldAt(path, depth)} is not read by the line reader`);
        if (same) found = k;
      }
    }
    if (found < 0) {
      if (hasBlockScalar) return no(`${fieldAt(path, depth)} holds a block scalar, after which a new key could land inside it`);
      // insert the rest of the path after the last entry of this mapping
      if (depth > 0 && first < 0) {
        const after = lines[parentLine]!;
        const kv = splitKeyLine(after.text);
        if (!kv || (kv[1] !== '' && !kv[1].startsWith('#'))) return no(`${fieldAt(path, depth)} is written in flow style (\`{}\`)`);
      }
      const add: string[] = [];
      for (let d = depth; d < path.length; d++) {
        const pad = ' '.repeat(indent + (d - depth) * 2);
        const key = keyText(path[d]!);
        if (key === undefined) return no(`the key ${path[d]} needs escapes`);
        add.push(d === path.length - 1 ? `${pad}${key}: ${valueText}` : `${pad}${key}:`);
      }
      const out = body.split('\n');
      if (out[out.length - 1] === '') out.pop();
      out.splice(lastEntryEnd, 0, ...add);
      return out.join('\n') + '\n';
    }
    const kv = splitKeyLine(lines[found]!.text)!;
    if (depth === path.length - 1) {
      const v = kv[1];
      const special = OLD_VALUE[v[0] ?? ''];
      if (special) return no(`its old value ${special}`);
      if (v === '' || v.startsWith('#')) {
        // `key:` with a nested block (or null): only a null is replaceable line-wise
        let k = found + 1;
        while (k < lines.length && lines[k]!.skip) k++;
        if (k < lines.length && lines[k]!.indent > indent) return no('its old value is a mapping or a list');
        if (k < lines.length && lines[k]!.indent === indent && lines[k]!.text.startsWith('-')) return no('its old value is a list');
      } else {
        // a single-line value: check it is not continued on the next lines
        let k = found + 1;
        while (k < lines.length && lines[k]!.skip) k++;
        if (k < lines.length && lines[k]!.indent > indent) return no('its old value spans several lines');
        if (v.startsWith('[') || v.startsWith('{')) {
          if (fastLoad(`k: ${v}\n`) === undefined) return no('its old value is a flow collection the line reader does not take');
        }
      }
      const out = body.split('\n');
      const text = lines[found]!.text;
      const key = text.slice(0, keyLength(text));
      // a comment after the old value stays (`replicas: 1 # kpt-set: ${replicas}`): kpt's
      // setters live in such comments, and yaml's Document keeps them too
      const comment = trailingComment(text.slice(key.length + 1));
      if (comment === undefined) return no('its old value is a flow collection with quotes and a `#` in it');
      out[found] = ' '.repeat(indent) + key + ': ' + valueText + comment;
      return out.join('\n');
    }
    // descend: the value must be a nested block mapping
    if (kv[1] !== '' && !kv[1].startsWith('#'))
      return no(`${fieldAt(path, depth + 1)} is written in flow style (or has an anchor, a tag, a scalar value)`);
    parentLine = found;
    start = found + 1;
    let k = start;
    while (k < end && (lines[k]!.skip || lines[k]!.indent > indent || (lines[k]!.indent === indent && lines[k]!.text.startsWith('-')))) k++;
    // trailing skip lines belong to whatever follows
    while (k > start && lines[k - 1]!.skip) k--;
    end = k;
  }
  return no('the path is empty');
}

/** What an old value the line reader leaves alone is, by its first character. */
const OLD_VALUE: Record<string, string> = {
  '|': 'is a block scalar',
  '>': 'is a folded block scalar',
  '&': 'has an anchor',
  '*': 'is an alias',
  '!': 'has a tag',
};

/**
 * The comment after a one-line value, with the blanks before it (`1  # keep` -> `  # keep`; `key:
 * # note` -> ` # note`): '' when there is none, undefined when a flow collection with quoted
 * entries holds a `#` (the caller leaves it to yaml). A `#` after a blank starts a comment in a
 * plain value and in a flow collection alike.
 */
function trailingComment(afterColon: string): string | undefined {
  const v = afterColon.trimStart();
  if (v.startsWith('#')) return ' ' + v;
  let end = 0; // where the value's own text ends, for a quoted value
  if (v[0] === '"') {
    end = 1;
    while (end < v.length && v[end] !== '"') end += v[end] === '\\' ? 2 : 1;
    end++;
  } else if (v[0] === "'") {
    end = 1;
    while (end < v.length && !(v[end] === "'" && v[end + 1] !== "'")) end += v[end] === "'" ? 2 : 1;
    end++;
  } else if ((v[0] === '[' || v[0] === '{') && /['"]/.test(v)) return v.includes('#') ? undefined : '';
  // in a plain value (or after a quoted one) a comment starts at the first blank followed by `#`
  const m = /[ \t]+#/.exec(v.slice(end));
  return m ? v.slice(end + m.index) : '';
}

function keyLength(text: string): number {
  const c = text[0];
  if (c === '"' || c === "'") return text.indexOf(c, 1) + 1;
  return text.indexOf(':');
}

/** Whether a plain key's text reads as the string `key` (`on` reads as true, `n` as false); undefined when the line reader cannot tell. */
function plainKeyReadsAs(text: string, key: string): boolean | undefined {
  const v = fastLoad(`${text}: 1\n`) as Record<string, unknown> | undefined;
  return v === undefined ? undefined : Object.hasOwn(v, key);
}

/** Whether the key of a `key: ...` line (plain or quoted) reads as the string `seg`; undefined when the line reader cannot tell. */
function keyReadsAs(text: string, seg: string): boolean | undefined {
  if (text[0] === '"' || text[0] === "'") return true; // splitKeyLine read it as a string
  return plainKeyReadsAs(text.slice(0, keyLength(text)), seg);
}

function keyText(key: string): string | undefined {
  if (/^[A-Za-z_][A-Za-z0-9_./-]*$/.test(key) && plainKeyReadsAs(key, key)) return key;
  if (/[\u0000-\u001f']/.test(key)) return undefined;
  return "'" + key + "'";
}
