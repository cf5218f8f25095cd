/**
 * Hostile and odd input through the runtime: each case asserts the exact outcome (the message,
 * the exit code, and that nothing is lost: a stream comes back as it went in, a list keeps its
 * items), in process and, for the crash classes, through a real bundle (no stack trace).
 */
import { describe, expect, it } from 'vitest';
import { definition as intentValidate } from '../../functions/intent-validate/function.js';
import { readInput, runFunction } from '../../src/krm/index.js';
import { MAX_DEPTH } from '../../src/krm/yaml-read.js';
import { resourceList, runBundle } from '../golden.js';
import { identity } from '../identity/function.js';

const readAll = 'apiVersion: baremetal-krm.dev/v1alpha1\nkind: Identity\nspec:\n  readAll: true\n';
const cm = (name: string, rest = ''): string => `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\n${rest}`;

/** The alias bomb of the issue: 9^6 nodes from 60 lines. */
const ALIAS_BOMB =
  'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: lol}\ndata:\n  a: &a [x,x,x,x,x,x,x,x,x]\n  b: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]\n  c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]\n  d: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]\n  e: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]\n  f: [*e,*e,*e,*e,*e,*e,*e,*e,*e]\n';

const errors = (r: { results: { severity: string; message: string; tags?: Record<string, string> }[] }) =>
  r.results.filter((x) => x.severity === 'error');

describe('crashes become one positioned input error', () => {
  it('an alias bomb in a plain stream: every function, exit 1, the stream back unchanged', async () => {
    for (const def of [identity, intentValidate]) {
      const r = await runFunction(def as typeof identity, ALIAS_BOMB);
      expect(r.exitCode).toBe(1);
      expect(errors(r)).toHaveLength(1);
      expect(errors(r)[0]!.message).toBe(
        'document 1 is not valid YAML at line 10, column 7: aliases expand to more than 100,000 nodes (an alias bomb?): not accepted',
      );
      expect(errors(r)[0]!.tags?.rule).toBe('input');
      expect(r.output).toBe(ALIAS_BOMB);
    }
    const b = runBundle('intent-validate', ALIAS_BOMB);
    expect(b.status).toBe(1);
    expect(b.stdout).toBe(ALIAS_BOMB);
    expect(b.stderr).not.toMatch(/\n\s+at /);
  });

  it('the same alias bomb as a list item: a ResourceList with the error, the item kept', async () => {
    const input = resourceList([ALIAS_BOMB]);
    const r = await runFunction(identity, input);
    expect(r.exitCode).toBe(1);
    expect(errors(r).map((e) => e.message)).toEqual([
      'items[0] is not valid YAML at line 10, column 7 of the item: aliases expand to more than 100,000 nodes (an alias bomb?): not accepted',
    ]);
    expect(r.output.startsWith(input)).toBe(true);
  });

  it('JSON nested 1,000 deep: one positioned error, as a ResourceList or a stream', async () => {
    const deep = '['.repeat(1000) + ']'.repeat(1000);
    const list = `{"apiVersion":"config.kubernetes.io/v1","kind":"ResourceList","items":[{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"x"},"data":{"d":${deep}}}]}`;
    const r = await runFunction(identity, list);
    expect(r.exitCode).toBe(1);
    expect(errors(r).map((e) => e.message)).toEqual([
      `input is not accepted JSON at line 1, column 398: nesting deeper than ${MAX_DEPTH} levels is not accepted`,
    ]);
    expect(r.output).toBe(list); // as it came: nothing lost (the result is on stderr)
    const stream = `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"x"},"data":{"d":${deep}}}\n`;
    const s = await runFunction(identity, stream);
    expect(s.exitCode).toBe(1);
    expect(errors(s)[0]!.message).toMatch(/^input is not accepted JSON at line 1, column \d+: nesting deeper than 256 levels/);
    expect(s.output).toBe(stream);
    const b = runBundle('test-identity', list);
    expect(b.status).toBe(1);
    expect(b.stderr).not.toMatch(/\n\s+at /);
  });

  it('YAML nested 1,000 deep (block, flow, compact sequences): one positioned error from every function', async () => {
    let block = cm('deep', 'data:\n');
    for (let i = 1; i <= 1000; i++) block += `${' '.repeat(2 * i)}k:\n`;
    const flow = cm('deep', `data:\n  d: ${'['.repeat(1000)}${']'.repeat(1000)}\n`);
    const compact = cm('deep', `data:\n  d:\n  ${'- '.repeat(1000)}x\n`);
    for (const doc of [block, flow, compact]) {
      for (const input of [doc, resourceList([doc])]) {
        const r = await runFunction(identity, input);
        expect(r.exitCode, input.slice(0, 200)).toBe(1);
        expect(errors(r)).toHaveLength(1);
        expect(errors(r)[0]!.message).toMatch(
          /(?:document 1|items\[0\]) is not valid YAML at line \d+, column \d+.*: nesting deeper than 256 levels is not accepted$/,
        );
        if (input === doc) expect(r.output).toBe(doc);
        else expect(r.output.startsWith(input)).toBe(true);
      }
    }
    const b = runBundle('intent-validate', block);
    expect(b.status).toBe(1);
    expect(b.stdout).toBe(block);
    expect(b.stderr).not.toMatch(/\n\s+at /);
  });

  it(`nesting up to the limit (${MAX_DEPTH} collections) is read, one more is not`, async () => {
    /** a ConfigMap whose collections nest `levels` deep (the root mapping is level 1) */
    const nested = (levels: number): string => {
      let doc = cm('deep', 'data:\n');
      for (let i = 1; i <= levels - 2; i++) doc += `${' '.repeat(2 * i)}k:\n`;
      return doc + `${' '.repeat(2 * (levels - 1))}v: 1\n`;
    };
    for (const [levels, code] of [
      [MAX_DEPTH, 0],
      [MAX_DEPTH + 1, 1],
    ] as const) {
      for (const reader of ['fast', 'careful']) {
        // a tab in a block scalar beside it keeps the fast reader, an anchor sends the item to the careful one
        const doc = nested(levels) + (reader === 'fast' ? 'x: |\n  \tt\n' : 'x: &a 1\ny: *a\n');
        const r = await runFunction(identity, resourceList([doc], readAll));
        expect([levels, reader, r.exitCode]).toEqual([levels, reader, code]);
      }
    }
  });
});

describe('nothing destroyed on bad input', () => {
  it('bytes that are not UTF-8: error with the byte offset, line and item; nothing written', async () => {
    const bytes = Buffer.concat([Buffer.from(cm('a') + '---\n' + cm('caf').trimEnd()), Buffer.from([0xe9]), Buffer.from('\n')]);
    const r = await runFunction(identity, bytes);
    expect(r.exitCode).toBe(1);
    expect(r.output).toBe('');
    expect(errors(r)[0]!.message).toBe(
      'input is not valid UTF-8: byte 0xE9 at byte offset 107 (line 9, byte 12 of the line, in document 2 ConfigMap/caf\ufffd); YAML is read as UTF-8: convert the file (e.g. iconv -f latin1 -t utf-8)',
    );
    const list = Buffer.concat([Buffer.from(resourceList([cm('x', 'data:\n  k: "')])), Buffer.from([0xff, 0xfe]), Buffer.from('"\n')]);
    const l = await runFunction(identity, list);
    expect(l.output).toBe('');
    expect(errors(l)[0]!.message).toMatch(
      /^input is not valid UTF-8: byte 0xFF at byte offset \d+ \(line 10, byte 1 of the line, in items\[0\] ConfigMap\/x\)/,
    );
    // UTF-16 (what some Windows editors write): named as such, with the conversion that fixes it
    for (const bom of [Buffer.from([0xff, 0xfe]), Buffer.from([0xfe, 0xff])]) {
      const u16 = Buffer.concat([bom, Buffer.from(cm('a'), 'utf16le')]);
      const w = await runFunction(identity, u16);
      expect(w.output).toBe('');
      expect(errors(w)[0]!.message).toBe(
        'input is UTF-16 (it starts with a UTF-16 byte-order mark), not UTF-8: YAML is read as UTF-8: convert the file (iconv -f utf-16 -t utf-8)',
      );
    }
  });

  it('a U+FFFD written in the input is a character like any other; a bad byte after one is still found', async () => {
    // the decoder writes U+FFFD for a bad byte: a real one must not be taken for one, nor hide one
    const text = resourceList([cm('x', 'data:\n  k: "\ufffd"\n')]);
    const ok = await runFunction(identity, Buffer.from(text));
    expect([ok.exitCode, ok.output]).toEqual([0, text]);
    const bad = await runFunction(
      identity,
      Buffer.concat([Buffer.from(text), Buffer.from('# '), Buffer.from([0xc3, 0x28]), Buffer.from('\n')]),
    );
    expect(bad.output).toBe('');
    expect(errors(bad)[0]!.message).toMatch(/^input is not valid UTF-8: byte 0xC3 at byte offset \d+ \(line 10, byte 3 of the line/);
  });

  it('a NUL or another character YAML does not allow (as go-yaml): error with the byte offset, line, item and fix; nothing written', async () => {
    const stream = cm('a') + '---\n' + cm('é', 'data:\n  k: x\u0000y\n');
    for (const input of [stream, Buffer.from(stream)]) {
      const r = await runFunction(identity, input);
      expect(r.exitCode).toBe(1);
      expect(r.output).toBe('');
      expect(errors(r).map((e) => e.message)).toEqual([
        'input holds a character YAML does not allow at byte offset 119 (line 11, byte 7 of the line, in document 2 ConfigMap/é); ' +
          'U+0000 (NUL, a control character) is not allowed in YAML (kubectl, kustomize and kpt refuse it too): remove it, or write it escaped in a double-quoted string ("\\x00")',
      ]);
    }
    // the other forbidden characters, anywhere (a quoted string, a comment, a block scalar, JSON): the same error; so are
    // NEL, U+2028 and U+2029 (line breaks to go-yaml, characters to YAML 1.2 readers); tab and escapes are content
    for (const [text, char] of [
      [resourceList([cm('x', 'data:\n  k: "bell\u0007"\n')]), 'U+0007'],
      [resourceList([cm('x', '# esc \u001b[0m\n')]), 'U+001B'],
      [resourceList([cm('x', 'data:\n  k: |\n    del\u007f\n')]), 'U+007F'],
      [
        `{"apiVersion":"config.kubernetes.io/v1","kind":"ResourceList","items":[{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"x"},"data":{"k":"c1\u0080"}}]}`,
        'U+0080',
      ],
      [cm('x', 'data:\n  k: non\uffffchar\n'), 'U+FFFF'],
      [resourceList([cm('x', 'data:\n  nel: a\u0085b\n')]), 'U+0085'],
      [cm('x', 'data:\n  k: "line\u2028separator"\n'), 'U+2028'],
      [resourceList([cm('x', '# para\u2029graph\n')]), 'U+2029'],
    ]) {
      const r = await runFunction(identity, text!);
      expect([r.exitCode, r.output, errors(r)[0]?.message.includes(`; ${char} (`)], text).toEqual([1, '', true]);
    }
    const allowed = await runFunction(
      identity,
      resourceList([cm('x', 'data:\n  tab: "a\tb"\n  esc: "\\0\\x07\\u007f\\N\\L\\P\\u2028"\n')], readAll),
    );
    expect(allowed.exitCode).toBe(0);
    const b = runBundle('test-identity', stream);
    expect([b.status, b.stdout]).toEqual([1, '']);
    expect(b.stderr).toContain('in document 2 ConfigMap/é); U+0000 (NUL, a control character) is not allowed in YAML');
  });

  it('a ResourceList that cannot be read is written back as it came, its results after it (never an emptied list), exit 1', async () => {
    const secret = 'apiVersion: v1\nkind: Secret\nmetadata:\n  name: s\nstringData:\n  password: hunter2-value\n';
    for (const input of [
      resourceList([secret]) + 'items: []\n', // items written twice
      resourceList([secret]) + 'kind: ResourceList\n',
      `${resourceList([secret])}functionConfig: {a: [}\n`, // a YAML error after the items
    ]) {
      const r = await runFunction(intentValidate, input);
      expect(r.exitCode, input).toBe(1);
      expect(r.output.startsWith(input), input).toBe(true);
      expect(r.output.slice(input.length), input).toMatch(/^results:\n- message: /);
      expect(r.results.map((x) => x.message).join('\n') + r.stderr, input).not.toContain('hunter2');
    }
  });

  it('a plain stream with a YAML error is written back unchanged (never a ResourceList), exit 1', async () => {
    const input = `${cm('a')}---\na: [\n`;
    const r = await runFunction(identity, input);
    expect(r.exitCode).toBe(1);
    expect(r.output).toBe(input);
    expect(errors(r)[0]!.message).toMatch(/^document 2 is not valid YAML at line 7, column 1: /);
    const b = runBundle('test-identity', input);
    expect([b.status, b.stdout]).toEqual([1, input]);
  });

  it('JSON ResourceList numbers are kept as written, also in an edited item', async () => {
    const item = '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"n"},"data":{"big":12345678901234567890123,"f":1.0,"e":1e3}}';
    const input = `{"apiVersion":"config.kubernetes.io/v1","kind":"ResourceList","items":[${item}]}`;
    expect((await runFunction(identity, input)).output).toBe(input);
    const fc = ',"functionConfig":{"apiVersion":"baremetal-krm.dev/v1alpha1","kind":"Identity","spec":{"annotate":{"a.b/c":"d"}}}';
    const edited = await runFunction(identity, input.replace(/}$/, fc + '}'));
    expect(edited.exitCode).toBe(0);
    expect(edited.output).toContain('"big": 12345678901234567890123');
    expect(edited.output).toContain('"f": 1.0');
    expect(edited.output).toContain('"e": 1e3');
    expect(JSON.parse(edited.output).items[0].metadata.annotations).toEqual({ 'a.b/c': 'd' });
  });

  it('duplicate keys: an error naming both lines, as kubectl and kustomize report them', async () => {
    const r = await runFunction(identity, resourceList([cm('d', 'data:\n  x: "1"\n  x: "2"\n')], readAll));
    expect(r.exitCode).toBe(1);
    expect(errors(r)[0]!.message).toBe(
      'items[0] is not valid YAML at line 7, column 3 of the item: duplicate key "x" (first at line 6): kustomize rejects it and kubectl keeps the last without a word; keep one',
    );
  });
});

describe('items that are not KRM resources', () => {
  it('a non-mapping item is an error with its index (the function does not run); one without apiVersion/kind is named', async () => {
    const r = await runFunction(identity, resourceList(['- a\n- b\n', 'metadata:\n  name: x\n', cm('ok')]));
    expect(r.exitCode).toBe(1);
    expect(r.results.map((e) => `${e.severity} ${e.message}`)).toEqual([
      'error items[0] is not a mapping (it is a list): a KRM resource is a mapping with apiVersion, kind and metadata',
      'info items[1] named x has no apiVersion and kind: not a KRM resource; passed through as it is',
    ]);
    // half a type is an error naming the field (test/input/header-types.test.ts has every wrong header); a
    // kustomization.yaml (kpt passes it through functions) is expected
    const kustomization = 'resources: [a.yaml]\nmetadata:\n  annotations:\n    config.kubernetes.io/path: site/kustomization.yaml\n';
    const s = await runFunction(
      intentValidate as typeof identity,
      resourceList(['kind: ConfigMap\nmetadata:\n  name: web\n', kustomization]),
    );
    expect(s.exitCode).toBe(1);
    expect(s.results.filter((x) => x.tags?.rule === 'input').map((e) => `${e.severity} ${e.field?.path}: ${e.message}`)).toEqual([
      'error apiVersion: items[0] named web: apiVersion is missing (the item has kind: every KRM resource needs both): write group/version as a string, e.g. apiVersion: metal3.io/v1alpha1 (v1 for core kinds)',
    ]);
  });
});

describe('results of a plain stream', () => {
  it('go to stderr, warnings too (a pre-commit hook otherwise counted warnings it never showed); a ResourceList carries them', async () => {
    const stream = 'apiVersion: example.com/v1\nkind: Foo\nmetadata:\n  name: a\nspec:\n  a: yes\n';
    const r = await runFunction(intentValidate as unknown as typeof identity, stream);
    expect(r.exitCode).toBe(0);
    expect(r.output).toBe(stream);
    expect(r.stderr).toMatch(
      /^warning: Foo\/a: spec\.a: plain value yes is ambiguous: .* \[yaml-ambiguous\]\n0 error\(s\), 1 warning\(s\), 0 info\n$/,
    );
    const list = await runFunction(intentValidate as unknown as typeof identity, resourceList([stream]));
    expect(list.stderr).toBe('0 error(s), 1 warning(s), 0 info\n');
  });
});

describe('a ResourceList of the wrong shape', () => {
  it('a ResourceList among other documents is an input error (read as one item, its plaintext Secret passed), the stream back unchanged', async () => {
    const stream =
      'apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n- apiVersion: v1\n  kind: Secret\n  metadata: {name: hidden}\n  stringData: {password: hunter2xyz}\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: b}\n';
    for (const input of [stream, `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n---\n${stream}`]) {
      const r = await runFunction(intentValidate as unknown as typeof identity, input);
      expect(r.exitCode).toBe(1);
      expect(errors(r).map((e) => e.message)[0]).toMatch(
        /^document \d \(line \d+\) is a ResourceList among other documents: give a ResourceList alone/,
      );
      expect(r.output).toBe(input);
    }
    const b = runBundle('intent-validate', stream);
    expect(b.status).toBe(1);
    expect(b.stdout).toBe(stream);
  });

  const head = 'apiVersion: config.kubernetes.io/v1\nkind: ResourceList\n';
  it('items that are not a list, a functionConfig that is not a mapping: one error naming what it is, exit 1 (not ignored)', async () => {
    for (const [rest, message] of [
      ['items: 5\n', "the ResourceList's items is a number, not a list"],
      ['items: {a: 1}\n', "the ResourceList's items is a mapping, not a list"],
      ['items: []\nfunctionConfig: [1]\n', 'functionConfig is a list, not a mapping'],
      ['items: []\nfunctionConfig: s3cr3t-value\n', 'functionConfig is a string, not a mapping'],
    ] as const) {
      for (const input of [
        head + rest,
        JSON.stringify(Object.assign({ apiVersion: 'config.kubernetes.io/v1', kind: 'ResourceList' }, readInputShape(rest))),
      ]) {
        const r = await runFunction(intentValidate, input);
        expect(r.exitCode, input).toBe(1);
        expect(r.results.map((x) => x.message).join('\n'), input).toContain(message);
        expect(r.stderr, input).not.toContain('s3cr3t');
      }
    }
  });
  it('an empty functionConfig ({} or nothing) is none: the function runs with its defaults', async () => {
    for (const rest of ['items: []\nfunctionConfig: {}\n', 'items: []\nfunctionConfig:\n'])
      expect((await runFunction(intentValidate, head + rest)).exitCode, rest).toBe(0);
  });
});

/** The members of the YAML text `rest` as data (for the same input as JSON). */
function readInputShape(rest: string): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const line of rest.trimEnd().split('\n')) {
    const [k, v] = [line.slice(0, line.indexOf(':')), line.slice(line.indexOf(':') + 1).trim()];
    out[k] = v === '5' ? 5 : v === '[]' ? [] : v === '[1]' ? [1] : v === '{a: 1}' ? { a: 1 } : v;
  }
  return out;
}

describe('size and shape', () => {
  it('100k items pass through byte for byte, and are all read', async () => {
    const docs = Array.from({ length: 100_000 }, (_, i) => cm(`c${i}`, `data:\n  k: v${i}\n`));
    const input = resourceList(docs);
    const r = await runFunction(identity, input);
    expect(r.exitCode).toBe(0);
    expect(r.output).toBe(input);
    const stream = docs.join('---\n');
    expect((await runFunction(identity, stream)).output).toBe(stream);
    expect(readInput(input).items.length).toBe(100_000);
  });

  it('a 50 MB document passes through byte for byte and is read', async () => {
    const line = '    ' + 'x'.repeat(95) + '\n';
    const doc = cm('big', 'data:\n  blob: |\n' + line.repeat(Math.ceil(50e6 / line.length)));
    // a ResourceList comes back without its functionConfig (never echoed)
    for (const [input, expected] of [
      [doc, doc],
      [resourceList([doc], readAll), resourceList([doc])],
    ] as const) {
      const r = await runFunction(identity, input);
      expect(r.exitCode).toBe(0);
      expect(r.output.length).toBe(expected.length);
      expect(r.output === expected).toBe(true);
    }
  });
});
