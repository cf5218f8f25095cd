/**
 * The YAML 1.1 words, the one home for them: which plain scalars a YAML 1.1 reader (Go
 * yaml.v2, kubectl, the `yaml` package's 1.1 schema) takes for a boolean or null. The fast
 * reader resolves with them, the writers quote them, intent-validate flags the ones YAML 1.2
 * reads differently, and the Go-template writer reproduces yaml.v2's resolve table with them.
 */

/** Plain scalars YAML 1.1 reads as true. */
export const YAML11_TRUE: ReadonlySet<string> = new Set(['y', 'Y', 'yes', 'Yes', 'YES', 'true', 'True', 'TRUE', 'on', 'On', 'ON']);
/** Plain scalars YAML 1.1 reads as false. */
export const YAML11_FALSE: ReadonlySet<string> = new Set(['n', 'N', 'no', 'No', 'NO', 'false', 'False', 'FALSE', 'off', 'Off', 'OFF']);
/** Plain scalars YAML 1.1 reads as null (the empty scalar included). */
export const YAML11_NULL: ReadonlySet<string> = new Set(['', '~', 'null', 'Null', 'NULL']);
/** Plain scalars YAML 1.1 and YAML 1.2 read as floats: infinities and NaN. */
export const YAML11_SPECIAL_FLOAT: ReadonlySet<string> = new Set(
  ['.nan', '.NaN', '.NAN'].concat(...['', '+', '-'].map((sign) => ['.inf', '.Inf', '.INF'].map((w) => sign + w))),
);

/**
 * Plain scalars YAML 1.1 reads as floats, with an exponent and without. The mantissa holds a
 * digit, as in Go's yaml.v2 (`^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$`, on the
 * text without `_`): the `yaml` package's 1.1 patterns also match `e0`, `E5`, `-e1` and `.`,
 * which it then reads as NaN (a ConfigMap named e0 would be named NaN). PARSE_OPTIONS gives
 * `yaml` these; the fast reader resolves with them.
 */
export const YAML11_FLOAT_EXP = /^[-+]?(?:[0-9][0-9_]*(?:\.[0-9_]*)?|\.[0-9_]*[0-9][0-9_]*)[eE][-+]?[0-9]+$/;
export const YAML11_FLOAT = /^[-+]?(?:[0-9][0-9_]*\.[0-9_]*|\.[0-9_]*[0-9][0-9_]*)$/;

/** Booleans only for YAML 1.1 (`yes`, `on`, `y` ...): YAML 1.2 readers take them as strings. */
export const YAML11_ONLY_BOOL: ReadonlySet<string> = new Set(
  [...YAML11_TRUE, ...YAML11_FALSE].filter((w) => !/^(?:true|True|TRUE|false|False|FALSE)$/.test(w)),
);

/** Whether a plain scalar is one of YAML 1.1's boolean or null words. */
export function isYaml11Word(s: string): boolean {
  return YAML11_TRUE.has(s) || YAML11_FALSE.has(s) || YAML11_NULL.has(s);
}

/** `(?:y|Y|yes|...)`: the words of a set as a regular-expression alternation, longest first. */
export function wordsPattern(words: Iterable<string>): string {
  const list = [...words].filter((w) => w !== '').sort((a, b) => b.length - a.length || (a < b ? -1 : 1));
  return `(?:${list.map((w) => w.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|')})`;
}
