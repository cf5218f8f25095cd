import fc from 'fast-check';
import { dump } from 'js-yaml';
import { parse, stringify } from 'yaml';
import { PARSE_OPTIONS } from './lazy.js';
import { describe, expect, it } from 'vitest';
import { fastLoad, loadYaml } from './fast-yaml.js';
import { UNSAFE } from './printable.js';
import { lineCol, readYaml, YamlReadError } from './yaml-read.js';

const yaml11 = (t: string): unknown => parse(t, PARSE_OPTIONS);

/** Strings that YAML readers disagree on or that need quoting. */
const trickyString = fc.constantFrom(
  'yes',
  'no',
  'on',
  'off',
  'y',
  'N',
  'true',
  'False',
  'null',
  '~',
  '',
  ' ',
  '0644',
  '0o17',
  '1_000',
  '1:20',
  '12e3',
  '.inf',
  '-.5',
  '+1',
  '0x1F',
  '2001-12-14',
  'a: b',
  'a:b',
  '#x',
  'x #y',
  '- x',
  '? x',
  '[x]',
  '{x}',
  '&a',
  '*a',
  '!t',
  '|',
  '>',
  '%x',
  '@x',
  '`x',
  "it's",
  'say "hi"',
  'tab\there',
  'multi\nline',
  'trail\n',
  'é ü 漢字',
  'a\\b',
  'long '.repeat(30),
);
const key = fc.oneof(
  fc.stringMatching(/^[a-zA-Z_][a-zA-Z0-9_./-]{0,12}$/),
  trickyString.filter((s) => s !== ''),
);
const scalar = fc.oneof(
  fc.string(),
  trickyString,
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.boolean(),
  fc.constant(null),
);
const value = fc.letrec((tie) => ({
  v: fc.oneof({ depthSize: 'small', withCrossShrink: true }, scalar, tie('arr'), tie('obj')),
  arr: fc.array(tie('v'), { maxLength: 4 }),
  obj: fc.dictionary(key, tie('v'), { maxKeys: 5 }),
})).obj;

const styles: { name: string; dump: (v: unknown) => string }[] = [
  { name: 'yaml compact', dump: (v) => stringify(v, { version: '1.1', indentSeq: false, lineWidth: 0 }) },
  { name: 'yaml indented', dump: (v) => stringify(v, { version: '1.1', indentSeq: true }) },
  { name: 'yaml single-quoted', dump: (v) => stringify(v, { version: '1.1', defaultStringType: 'QUOTE_SINGLE' }) },
  { name: 'yaml double-quoted', dump: (v) => stringify(v, { version: '1.1', defaultStringType: 'QUOTE_DOUBLE', defaultKeyType: 'PLAIN' }) },
  { name: 'yaml literal blocks', dump: (v) => stringify(v, { version: '1.1', blockQuote: 'literal' }) },
  { name: 'yaml flow', dump: (v) => stringify(v, { version: '1.1', collectionStyle: 'flow' }) },
  { name: 'js-yaml', dump: (v) => dump(v, { lineWidth: -1 }) },
  { name: 'js-yaml flow level 2', dump: (v) => dump(v, { flowLevel: 2 }) },
  // go-yaml folds long plain strings over lines (CRDs' descriptions): multi-line plain scalars
  { name: 'yaml folded narrow', dump: (v) => stringify(v, { version: '1.1', lineWidth: 24, minContentWidth: 0 }) },
  { name: 'CRLF line ends', dump: (v) => stringify(v, { version: '1.1', indentSeq: false, lineWidth: 0 }).replace(/\n/g, '\r\n') },
  // some tools separate keys from values with a tab (YAML allows it; so does go-yaml)
  { name: 'tab separators', dump: (v) => stringify(v, { version: '1.1', indentSeq: false, lineWidth: 0 }).replace(/: /g, ':\t') },
];

/**
 * The fast reader reads `doc` as yaml (1.1) does, or says unsure, and always says unsure where
 * yaml refuses it: true when it read it.
 */
function readAsYaml(doc: string): boolean {
  let expected: unknown;
  try {
    expected = yaml11(doc);
  } catch {
    expect(fastLoad(doc), JSON.stringify(doc)).toBeUndefined();
    return false;
  }
  const got = fastLoad(doc);
  if (got === undefined) return false;
  expect(got, JSON.stringify(doc)).toEqual(expected);
  return true;
}

/** Lines of white space only, some with a tab (yaml reads them as empty lines), each after a line break. */
const blankLines = (lines: readonly string[]): string => lines.map((l) => `\n${l}`).join('');
const blanks = fc.array(fc.constantFrom('', '  ', ' \t', '  \t ', '\t'), { maxLength: 2 });

describe('fastLoad', () => {
  for (const style of styles) {
    it(`equals yaml (1.1) or says unsure: ${style.name}`, () => {
      let fast = 0;
      let total = 0;
      fc.assert(
        fc.property(value, fc.boolean(), (v, comments) => {
          let text = style.dump(v);
          if (comments) text = text.replace(/\n/g, (m, off: number) => (off % 3 === 0 ? '\n# note\n' : m));
          let expected: unknown;
          try {
            expected = yaml11(text);
          } catch {
            return; // the dumper wrote something yaml 1.1 cannot read back: not our concern
          }
          total++;
          const got = fastLoad(text);
          if (got !== undefined) {
            fast++;
            expect(got).toEqual(expected);
          }
        }),
        { numRuns: Number(process.env.FC_RUNS ?? 400) },
      );
      // the fast path must actually be taken for the common block styles
      if (style.name === 'yaml compact' || style.name === 'js-yaml') expect(fast / total).toBeGreaterThan(0.5);
    });
  }

  it('reads the layout kpt writes, including comments and quoted annotations', () => {
    const t = [
      '# leading comment',
      'apiVersion: metal3.io/v1alpha1',
      'kind: BareMetalHost',
      'metadata:',
      '  name: node01 # trailing',
      '  annotations:',
      "    config.kubernetes.io/index: '0'",
      '    x: "yes"',
      'spec:',
      '  online: false',
      '  bootMACAddress: 52:54:00:b6:ed:31',
      '  rootDeviceHints:',
      '    minSizeGigabytes: 100',
      '  list:',
      '  - a',
      '  - name: b',
      '    value: 0644',
      '  userData: |',
      '    #cloud-config',
      '    runcmd:',
      '',
      '      - echo hi',
      '  empty: []',
      '  flow: {a: 1, b: [x, "y"]}',
      '',
    ].join('\n');
    const got = fastLoad(t);
    expect(got).toEqual(yaml11(t));
    expect(got).toMatchObject({ metadata: { annotations: { 'config.kubernetes.io/index': '0', x: 'yes' } } });
    expect((got as { spec: { list: unknown[] } }).spec.list[1]).toEqual({ name: 'b', value: 420 });
  });

  it('reads multi-line plain scalars, CRLF line ends and tabs in literal block scalars as yaml does', () => {
    for (const t of [
      'a: b\n  c\n',
      'a: b\n\n  c\n\n\n  d\nz: 1\n',
      '- x\n  y\n- z\n',
      'k:\n  - one two\n    three\n',
      'a: 1\r\nb:\r\n  c: |\r\n    x\r\n    y\r\n',
      'Makefile: |\n  all:\n  \techo hi\n  \t\n',
    ]) {
      expect(fastLoad(t), JSON.stringify(t)).toEqual(yaml11(t));
    }
  });

  it('is unsure about anchors, tags, folded scalars, duplicate keys, bare CRs and tabs as indentation', () => {
    for (const t of [
      'a: &x 1\nb: *x\n',
      'a: !!str 1\n',
      'a: >\n  x\n  y\n',
      'a: b\n  - c\n',
      'a: b # c\n  d\n',
      'a: 1\ra: 2\n',
      'a:\n\tb: 1\n',
      'a: |\n\tx\n',
      'a: 1\na: 2\n',
      "a: 'x\n\ty'\n",
      "a:\n  b: 'x\n  y'\n",
      'a: "x\\\n  y"\n',
      "a: 'x\n  y\n",
      'k: true\n  \t\nz: 1\n',
      'k: a\n  \t\n  b\n',
      'k:\n  - x\n    \t\n',
      '- \t\n  more\n',
      '<<: {a: 1}\n',
    ]) {
      expect(fastLoad(t), t).toBeUndefined();
    }
  });

  it('reads quoted scalars over several lines as yaml does, or says unsure (property)', () => {
    let read = 0;
    const word = fc.constantFrom(
      'a',
      "it's",
      "''",
      '""',
      'x y',
      '#',
      ' # c',
      ': ',
      '- x',
      '\\"',
      '\\n',
      '\\\\',
      '\\',
      'é',
      '  ',
      '\t',
      '---',
      '...',
    );
    const line = fc.array(word, { maxLength: 4 }).map((ws) => ws.join(''));
    fc.assert(
      fc.property(
        fc.constantFrom("'", '"'),
        fc.array(fc.record({ text: line, indent: fc.integer({ min: 0, max: 6 }), blanks }), {
          minLength: 1,
          maxLength: 4,
        }),
        fc.constantFrom('map', 'nested', 'seq', 'seqmap'),
        fc.constantFrom('', '  ', '  # note', ' x'),
        (q, lines, where, after) => {
          const esc = (t: string) => (q === "'" ? t.replace(/'/g, "''") : t.replace(/"/g, '\\"'));
          const [first, ...more] = lines;
          const body = `${q}${esc(first!.text)}${more.map((l) => `${blankLines(l.blanks)}\n${' '.repeat(l.indent)}${esc(l.text)}`).join('')}${q}${after}`;
          const doc =
            where === 'map'
              ? `k: ${body}\nz: 1\n`
              : where === 'nested'
                ? `o:\n  k: ${body}\n  z: 1\n`
                : where === 'seq'
                  ? `- ${body}\n- 1\n`
                  : `- k: ${body}\n  z: 1\n`;
          if (readAsYaml(doc)) read++;
        },
      ),
      { numRuns: 3000 },
    );
    // most are read (the rest hold a tab, an escaped line break or a line too far left)
    expect(read).toBeGreaterThan(600);
    // the layout controller-gen writes CRD descriptions in is read, not left to yaml
    const crd =
      "description: 'Kind is a string value representing the REST resource this\n  object represents. Servers may infer this from the endpoint the client submits\n  requests to. Cannot be updated. In CamelCase. More info: https://git.k8s.io/community'\ntype: string\n";
    expect(fastLoad(crd)).toEqual(yaml11(crd));
  });

  it('reads plain scalars over several lines as yaml does, whatever their lines start with, or says unsure (property)', () => {
    let read = 0;
    const start = fc.constantFrom(
      '',
      '"',
      "'",
      '[',
      ']',
      '{',
      '}',
      ',',
      '&',
      '*',
      '!',
      '|',
      '>',
      '%',
      '@',
      '`',
      '-',
      '- ',
      '?',
      '? ',
      ':',
      ': ',
      '#',
      ' #',
      'x: ',
      'é',
    );
    fc.assert(
      fc.property(
        fc.array(
          fc.record({
            start,
            text: fc.constantFrom('in use', 'a', '0x8086', 'b]', 'c: d', 'e #f', 'g:'),
            indent: fc.integer({ min: 1, max: 4 }),
            blanks,
          }),
          {
            minLength: 1,
            maxLength: 4,
          },
        ),
        fc.constantFrom('map', 'seq'),
        (lines, where) => {
          const more = lines
            .map((l) => `${blankLines(l.blanks)}\n${' '.repeat(where === 'map' ? l.indent : l.indent + 1)}${l.start}${l.text}`)
            .join('');
          const doc = where === 'map' ? `k: first${more}\nz: 1\n` : `- first${more}\n- 1\n`;
          if (readAsYaml(doc)) read++;
        },
      ),
      { numRuns: 3000 },
    );
    expect(read).toBeGreaterThan(150);
  });

  it('reads a long list of mappings (more collections than the depth limit, shallow) and refuses only deep nesting', () => {
    // a functionConfig listing 1,000 BMCs: 1,002 collections, none deeper than 4
    const entries = Array.from({ length: 1000 }, (_, i) => `  - address: http://127.0.0.1:${40000 + i}\n    name: node-${i}\n`);
    const wide = `spec:\n  bmcs:\n${entries.join('')}`;
    expect(fastLoad(wide)).toEqual(yaml11(wide));
    const nested = (levels: number) =>
      Array.from({ length: levels }, (_, i) => `${'  '.repeat(i)}k:\n`).join('') + `${'  '.repeat(levels)}v: 1\n`;
    expect(fastLoad(nested(255))).toEqual(yaml11(nested(255)));
    expect(fastLoad(nested(300))).toBeUndefined(); // yaml-read reports it, positioned
    // flow collections inside block nesting count from the block's depth, not from 0
    const mixed = (block: number, flow: number) => nested(block).replace(/v: 1\n$/, `v: ${'['.repeat(flow)}1${']'.repeat(flow)}\n`);
    expect(fastLoad(mixed(120, 120))).toEqual(yaml11(mixed(120, 120)));
    expect(fastLoad(mixed(150, 150))).toBeUndefined();
  });

  it('agrees with the careful reader whatever ends the text: a CR, spaces, a CRLF missing its LF (property)', () => {
    const ending = fc.constantFrom('', '\r', '   ', '  ', '\n   ', '\n  \r', '\r\n', '\n\n  ');
    const body = fc.oneof(
      value.map((v) => stringify(v, { version: '1.1', indentSeq: false, lineWidth: 0, blockQuote: 'literal' })),
      fc.constantFrom('k: |+\n\n    x\n', 'k: |\n  x\n', 'k: |-\n  x\n', 'a: 0644\n', 'a: 1\r\nb: true\n'),
    );
    fc.assert(
      fc.property(body, ending, fc.boolean(), (b, end, crlf) => {
        const text = (crlf ? b.replace(/\n/g, '\r\n') : b).replace(/\r?\n$/, '') + end;
        let careful: unknown;
        try {
          careful = readYaml(text).value;
        } catch {
          return; // not YAML: the fast reader must not say otherwise, which the other properties check
        }
        const fast = fastLoad(text);
        if (fast !== undefined) expect(fast, JSON.stringify(text)).toEqual(careful);
      }),
      { numRuns: Number(process.env.FC_RUNS ?? 400) },
    );
    // CR-only line ends (old Mac): one line break each, never one 300-column line 300 levels deep
    const crOnly = Array.from({ length: 300 }, (_, i) => `k${i}: v`).join('\r') + '\r';
    expect(readYaml(crOnly).value).toEqual(readYaml(crOnly.replace(/\r/g, '\n')).value);
  });

  it('both readers refuse a character YAML does not allow, wherever it stands, at its position; tab, NEL and others are content (property)', () => {
    // c-printable (YAML 1.2 §5.1), as go-yaml checks it: C0 but tab/LF/CR, DEL, C1 but NEL, U+FFFE/U+FFFF
    const forbidden = fc.constantFrom(
      '\u0000',
      '\u0001',
      '\u0007',
      '\u0008',
      '\u000b',
      '\u000c',
      '\u000e',
      '\u001b',
      '\u001f',
      '\u007f',
      '\u0080',
      '\u0084',
      '\u0086',
      '\u009f',
      '\ufffe',
      '\uffff',
    );
    const allowed = fc.constantFrom('\t', '\u0085', '\u00a0', '\ufeff', '\ufffd', 'é', ' ', '"', "'", '\\');
    const body = fc.tuple(value, fc.nat(styles.length - 1)).map(([v, k]) => styles[k]!.dump(v));
    const inserts = fc.array(fc.tuple(fc.nat(), fc.oneof(forbidden, allowed)), { minLength: 1, maxLength: 3 });
    fc.assert(
      fc.property(body, inserts, (b, chars) => {
        let text = b;
        for (const [at, ch] of chars) {
          const i = at % (text.length + 1);
          text = text.slice(0, i) + ch + text.slice(i);
        }
        let careful: unknown;
        let error: unknown;
        try {
          careful = readYaml(text).value;
        } catch (e) {
          error = e;
        }
        const fast = fastLoad(text);
        const bad = UNSAFE.exec(text);
        if (bad) {
          expect(error, JSON.stringify(text)).toBeInstanceOf(YamlReadError);
          const { line, col } = lineCol(text, bad.index);
          expect([(error as YamlReadError).code, (error as YamlReadError).line, (error as YamlReadError).col]).toEqual([
            'NOT_PRINTABLE',
            line,
            col,
          ]);
        }
        // the fast reader reads what the careful one reads, or hands over: never a value where the careful one refuses
        if (error !== undefined) expect(fast, JSON.stringify(text)).toBeUndefined();
        else if (fast !== undefined) expect(fast, JSON.stringify(text)).toEqual(careful);
      }),
      { numRuns: Number(process.env.FC_RUNS ?? 400) },
    );
  });

  it('both readers take 256 nested collections and refuse 257, in every layout', () => {
    // `levels` collections each: block mappings, flow sequences in a mapping, block sequences, compact sequences, flow at the top
    const layouts: Record<string, (levels: number) => string> = {
      'block mappings': (n) => Array.from({ length: n - 1 }, (_, i) => `${'  '.repeat(i)}k:\n`).join('') + `${'  '.repeat(n - 1)}v: 1\n`,
      'flow in block': (n) => `k: ${'['.repeat(n - 1)}1${']'.repeat(n - 1)}\n`,
      'block sequences': (n) => Array.from({ length: n }, (_, i) => `${' '.repeat(2 * i)}-${i === n - 1 ? ' x' : ''}\n`).join(''),
      'compact sequences': (n) => `${'- '.repeat(n)}x\n`,
      'flow at the top': (n) => `${'['.repeat(n)}1${']'.repeat(n)}\n`,
    };
    for (const [layout, make] of Object.entries(layouts)) {
      expect(() => readYaml(make(256)), layout).not.toThrow();
      const fast = fastLoad(make(256));
      if (fast !== undefined) expect(fast, layout).toEqual(yaml11(make(256)));
      expect(() => readYaml(make(257)), layout).toThrow(/nesting deeper than 256 levels/);
      expect(fastLoad(make(257)), layout).toBeUndefined();
    }
  });

  it('reads documents longer than its line tables, one after another, and finds a bare CR far down', () => {
    // the line tables are shared by every read and grow: a long read, then a short one, then a long one with CRLF
    const long = (n: number, eol: string) =>
      `data:${eol}` + Array.from({ length: n }, (_, i) => `  key-${i}: |${eol}    line ${i}${eol}`).join('');
    for (const t of [long(3000, '\n'), 'a: 1\n', long(700, '\r\n'), 'b:\n- x\n']) {
      expect(fastLoad(t), t.slice(0, 40)).toEqual(yaml11(t));
    }
    // one bare CR after thousands of CRLF lines is still seen (the reader tracks the next CR, not the first)
    const bare = long(2000, '\r\n').replace('line 1999\r\n', 'line\r1999\r\n');
    expect(fastLoad(bare)).toBeUndefined();
    expect(fastLoad(long(2000, '\r\n'))).toEqual(yaml11(long(2000, '\r\n')));
  });
  it('loadYaml falls back to yaml and keeps YAML 1.1 meaning', () => {
    expect(loadYaml('a: &x yes\nb: *x\n')).toEqual({ a: true, b: true });
    expect(loadYaml('mode: 0644\n')).toEqual({ mode: 420 });
  });
});

describe('fastLoad numbers', () => {
  it('resolves number-like plain scalars exactly as yaml does (property)', () => {
    const numberish = fc.stringMatching(/^[-+]?[0-9._eEbxXoa-fA-F:]{1,10}$/);
    fc.assert(
      fc.property(fc.array(numberish, { minLength: 1, maxLength: 8 }), (vals) => {
        const text = vals.map((v, i) => `k${i}: ${v}\n`).join('') + `list: [${vals.join(', ')}]\n`;
        let expected: unknown;
        try {
          expected = yaml11(text);
        } catch {
          return;
        }
        const got = fastLoad(text);
        if (got !== undefined) expect(got).toEqual(expected);
      }),
      { numRuns: Number(process.env.FC_RUNS ?? 1000) },
    );
    // as Go reads them: `E5` and `.` are strings (the yaml package's own 1.1 schema makes them NaN: yaml11.ts), and a key `n` would be false
    expect(fastLoad('mac: 52:54:00:00:01:00\nmode: 0644\nv: 3.7.3\nip: 10.0.0.1\nx: -0x1F\nf: 1_000.5\ne: E5\ndot: .\n')).toEqual({
      mac: '52:54:00:00:01:00',
      mode: 420,
      v: '3.7.3',
      ip: '10.0.0.1',
      x: -31,
      f: 1000.5,
      e: 'E5',
      dot: '.',
    });
  });
});
