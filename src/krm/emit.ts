/**
 * A small block-YAML writer for plain data (results, reports): strings are written plain
 * when no YAML reader could take them for anything else, else as JSON strings (valid YAML
 * double-quoted scalars). It saves loading the `yaml` package just to write results.
 */

// YAML 1.1 words for booleans and null, and `e0`/`E+5`, which the yaml package's 1.1 float reads as numbers
const AMBIGUOUS = /^(?:y|Y|yes|Yes|YES|n|N|no|No|NO|true|True|TRUE|false|False|FALSE|on|On|ON|off|Off|OFF|null|Null|NULL|~|[eE][-+]?[0-9].*)$/;

function safePlain(s: string): boolean {
  return /^[A-Za-z_/][A-Za-z0-9_ ./()-]*$/.test(s) && !s.endsWith(' ') && !AMBIGUOUS.test(s);
}

function key(k: string): string {
  return /^[A-Za-z_][A-Za-z0-9_./-]*$/.test(k) && !AMBIGUOUS.test(k) ? k : JSON.stringify(k);
}

function scalar(v: unknown): string {
  if (v === null || v === undefined) return 'null';
  if (typeof v === 'string') return safePlain(v) ? v : JSON.stringify(v);
  if (typeof v === 'number') return Number.isFinite(v) ? String(v) : JSON.stringify(String(v));
  if (typeof v === 'boolean') return String(v);
  return JSON.stringify(String(v));
}

function isCollection(v: unknown): v is Record<string, unknown> | unknown[] {
  return v !== null && typeof v === 'object' && !(v instanceof Date);
}

/** Block YAML for `value` (an object or array), each line prefixed by `indent`. */
export function plainYaml(value: unknown, indent = ''): string {
  if (Array.isArray(value)) {
    if (value.length === 0) return `${indent}[]\n`;
    let out = '';
    for (const item of value) {
      if (isCollection(item) && (Array.isArray(item) ? item.length : Object.keys(item).length)) {
        const inner = plainYaml(item, indent + '  ');
        out += indent + '- ' + inner.slice(indent.length + 2);
      } else out += `${indent}- ${isCollection(item) ? (Array.isArray(item) ? '[]' : '{}') : scalar(item)}\n`;
    }
    return out;
  }
  if (isCollection(value)) {
    const entries = Object.entries(value).filter(([, v]) => v !== undefined);
    if (entries.length === 0) return `${indent}{}\n`;
    let out = '';
    for (const [k, v] of entries) {
      if (isCollection(v) && (Array.isArray(v) ? v.length : Object.keys(v).length)) {
        // kyaml's compact style: a sequence under a key sits at the key's indentation
        out += `${indent}${key(k)}:\n` + plainYaml(v, Array.isArray(v) ? indent : indent + '  ');
      } else out += `${indent}${key(k)}: ${isCollection(v) ? (Array.isArray(v) ? '[]' : '{}') : scalar(v)}\n`;
    }
    return out;
  }
  return `${indent}${scalar(value)}\n`;
}
