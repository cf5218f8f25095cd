/**
 * Every header field with every wrong type (null, a number, a boolean, a list, a mapping, an
 * empty string; flow and block layouts; the header first or after the body; YAML streams,
 * ResourceLists and JSON): never a crash, one error naming the field (or none, where Kubernetes
 * reads the value as unset), exit 1 exactly then, and the same findings from intent-validate
 * and `baremetal-krm validate`, which the report's loader also counts as errors.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { definition as intentValidate } from '../../functions/intent-validate/function.js';
import { runValidate } from '../../src/cli/validate.js';
import { type Result, readInput, runFunction } from '../../src/krm/index.js';
import { reportMain } from '../../src/report/cli.js';
import { loadSite } from '../../src/report/load.js';
import { resourceList } from '../golden.js';

type Kind = 'null' | 'empty string' | 'number' | 'boolean' | 'list' | 'mapping';

interface Value {
  kind: Kind;
  /** the value after `key:`, for a key indented by `indent` */
  yaml: (indent: string) => string;
  /** the same as JSON data, when JSON can say it */
  json?: unknown;
}

const VALUES: Value[] = [
  { kind: 'null', yaml: () => ' null', json: null },
  { kind: 'null', yaml: () => '' }, // `key:` and nothing
  { kind: 'empty string', yaml: () => ' ""', json: '' },
  { kind: 'number', yaml: () => ' 5', json: 5 },
  { kind: 'number', yaml: () => ' 1.5' },
  { kind: 'boolean', yaml: () => ' true', json: true },
  { kind: 'boolean', yaml: () => ' yes' }, // YAML 1.1, as kubectl reads it
  { kind: 'list', yaml: () => ' [x]', json: ['x'] },
  { kind: 'list', yaml: (indent) => `\n${indent}- x` },
  { kind: 'mapping', yaml: () => ' {a: b}', json: { a: 'b' } },
  { kind: 'mapping', yaml: (indent) => `\n${indent}  a: b` },
];

const ALL: Kind[] = ['null', 'empty string', 'number', 'boolean', 'list', 'mapping'];

/**
 * Each header field, and the wrong types that are an error there (the others Kubernetes reads
 * as unset, or are right); `rules`: the rule that finds what else such a value holds.
 */
const FIELDS: { field: string; errors: Kind[]; rules?: Partial<Record<Kind, string>> }[] = [
  { field: 'apiVersion', errors: ALL },
  { field: 'kind', errors: ALL },
  // metadata: {a: b} has the right type, and a field ObjectMeta does not know
  { field: 'metadata', errors: ['null', 'empty string', 'number', 'boolean', 'list'], rules: { mapping: 'schema-unknown-field' } },
  { field: 'metadata.name', errors: ALL },
  { field: 'metadata.namespace', errors: ['number', 'boolean', 'list', 'mapping'] },
  { field: 'metadata.generateName', errors: ['number', 'boolean', 'list', 'mapping'] },
  { field: 'metadata.labels', errors: ['empty string', 'number', 'boolean', 'list'] },
  { field: 'metadata.annotations', errors: ['empty string', 'number', 'boolean', 'list'] },
  { field: 'metadata.labels.tier', errors: ['number', 'boolean', 'list', 'mapping'] },
  { field: 'metadata.annotations.note', errors: ['number', 'boolean', 'list', 'mapping'] },
];

/** A ConfigMap with nothing wrong but `field`, which holds `value`; the body first when `bodyFirst` (the header is then read with the whole item). */
function yamlDoc(field: string, value: Value, bodyFirst: boolean): string {
  const at = (f: string, indent: string, valid: string): string =>
    `${indent}${f.split('.').at(-1)}:${f === field ? value.yaml(indent) : ` ${valid}`}\n`;
  const map = (f: string, key: string, v: string): string =>
    field.startsWith(`${f}.`) ? `  ${f.slice(9)}:\n${at(`${f}.${key}`, '    ', v)}` : at(f, '  ', `{${key}: ${v}}`);
  const metadata =
    field === 'metadata'
      ? at('metadata', '', '')
      : 'metadata:\n' +
        at('metadata.name', '  ', 'web') +
        at('metadata.namespace', '  ', 'site') +
        (field === 'metadata.generateName' ? at(field, '  ', '') : '') +
        map('metadata.labels', 'tier', 'front') +
        map('metadata.annotations', 'note', 'kept');
  const header = at('apiVersion', '', 'v1') + at('kind', '', 'ConfigMap') + metadata;
  const body = 'data:\n  k: v\n';
  return bodyFirst ? body + header : header + body;
}

/** The same document as JSON (values JSON can say only). */
function jsonDoc(field: string, value: Value): string {
  const doc: Record<string, unknown> = {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'web', namespace: 'site', labels: { tier: 'front' }, annotations: { note: 'kept' } },
    data: { k: 'v' },
  };
  const path = field.split('.');
  let parent = doc;
  for (const p of path.slice(0, -1)) parent = parent[p] as Record<string, unknown>;
  parent[path.at(-1)!] = value.json;
  return JSON.stringify(doc, null, 2) + '\n';
}

const dir = mkdtempSync(join(tmpdir(), 'header-types-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** `baremetal-krm validate FILE` on the text, in process: exit code and findings as printed. */
async function cli(file: string, text: string): Promise<{ code: number; lines: string[] }> {
  writeFileSync(join(dir, file), text);
  let err = '';
  const code = await runValidate([join(dir, file)], { out: () => undefined, err: (s) => (err += s) });
  const lines = err.split('\n').filter((l) => l.startsWith(join(dir, file)));
  return { code, lines: lines.map((l) => l.slice(join(dir, file).length)) };
}

/** A function result as the CLI prints it (`:LINE: severity: message [rule]`): findings of the function and the CLI compared line for line. */
function asCliLine(r: Result): string {
  let message = r.message;
  // a rule's finding: the CLI puts the object and field in front (an input error says them itself)
  if (r.resourceRef && r.tags?.rule !== 'input') {
    const { kind, namespace, name } = r.resourceRef;
    const id = `${kind}/${namespace ? `${namespace}/` : ''}${name}`;
    const rest = message.startsWith(`${id}: `) ? message.slice(id.length + 2) : message;
    message = `${id}${r.field ? ` ${r.field.path}` : ''}: ${rest}`;
  }
  return `:${r.tags?.line ?? '?'}: ${r.severity}: ${message} [${r.tags?.rule}]`;
}

const sorted = (lines: string[]): string[] => [...lines].sort();

interface Case {
  field: string;
  value: Value;
  error: boolean;
  /** the rule that finds something else in the value */
  rule?: string;
}

const cases: Case[] = FIELDS.flatMap(({ field, errors, rules }) =>
  VALUES.map((value) => ({ field, value, error: errors.includes(value.kind), rule: rules?.[value.kind] })),
);

/** The checks every form shares: no crash, one error naming the field or none, exit 1 exactly then. */
function checkResults(c: Case, results: Result[], exitCode: number, what: string): void {
  const where = `${what}: ${c.field} = ${c.value.yaml('  ').trim() || '(nothing)'}`;
  expect(
    results.filter((r) => r.tags?.rule === 'internal'),
    where,
  ).toEqual([]);
  const input = results.filter((r) => r.tags?.rule === 'input' && r.severity === 'error');
  // the field named, once, by the reader; no rule repeats it (a schema finding on the same field)
  const onField = results.filter((r) => r.field?.path === c.field || r.message.includes(`${c.field} is `));
  if (c.error) {
    expect(
      input.map((r) => r.field?.path),
      where,
    ).toEqual([c.field]);
    expect(onField, where).toEqual(input);
    expect(input[0]!.message, where).toMatch(new RegExp(`(?:^|: )${c.field.replace(/\./g, '\\.')} (?:is|is missing) `));
    expect(input[0]!.message, where).toMatch(/: (?:write|quote|name)/); // and the fix
    // an annotation's value is never quoted (annotations may hold credentials)
    if (c.field.startsWith('metadata.annotations.')) expect(input[0]!.message, where).not.toMatch(/\((?:5|1\.5|true)\)/);
  } else {
    expect(input, where).toEqual([]);
  }
  const errors = results.filter((r) => r.severity === 'error').map((r) => r.tags?.rule);
  expect(errors, where).toEqual(c.error ? ['input'] : c.rule ? [c.rule] : []);
  expect(exitCode, where).toBe(errors.length > 0 ? 1 : 0);
}

describe('wrong types in every header field (generated: every field x every wrong type x every form)', () => {
  it('the function, as a YAML stream and a ResourceList, header first and last; the CLI gives the same lines', async () => {
    for (const c of cases) {
      for (const bodyFirst of [false, true]) {
        const doc = yamlDoc(c.field, c.value, bodyFirst);
        const stream = await runFunction(intentValidate as never, doc);
        checkResults(c, stream.results, stream.exitCode, `stream${bodyFirst ? ', body first' : ''}`);
        expect(stream.output, 'a validator changes nothing').toBe(doc);
        const list = await runFunction(intentValidate as never, resourceList([doc]));
        checkResults(c, list.results, list.exitCode, `ResourceList${bodyFirst ? ', body first' : ''}`);
        expect(list.results.map((r) => `${r.severity} ${r.field?.path} ${r.message.replace(/^items\[0\]/, 'document 1')}`)).toEqual(
          stream.results.map((r) => `${r.severity} ${r.field?.path} ${r.message}`),
        );
        const files = await cli('doc.yaml', doc);
        expect(files.code).toBe(stream.exitCode);
        expect(sorted(files.lines)).toEqual(sorted(stream.results.map(asCliLine)));
      }
    }
  });

  it('JSON: the function and the CLI', async () => {
    for (const c of cases.filter((x) => 'json' in x.value)) {
      const doc = jsonDoc(c.field, c.value);
      const fn = await runFunction(intentValidate as never, doc);
      checkResults(c, fn.results, fn.exitCode, 'JSON');
      const files = await cli('doc.json', doc);
      expect(files.code).toBe(fn.exitCode);
      // a JSON item's lines: the CLI counts them in the file, the function names none
      expect(sorted(files.lines.map((l) => l.replace(/^:\d+/, '')))).toEqual(
        sorted(fn.results.map((r) => asCliLine(r).replace(/^:[^:]+/, ''))),
      );
    }
  });

  it("the report's loader counts each as an error (--fail-on errors) and keeps only items whose identity it can read", () => {
    const siteDir = join(dir, 'site');
    mkdirSync(siteDir);
    for (const c of cases) {
      writeFileSync(join(siteDir, 'doc.yaml'), yamlDoc(c.field, c.value, false));
      const site = loadSite('s', siteDir);
      const where = `${c.field} = ${c.value.yaml('  ').trim() || '(nothing)'}`;
      expect(site.unreadable, where).toBe(c.error ? 1 : 0);
      const lines = [...site.skipped, ...site.notes].filter((l) => l.includes('error'));
      expect(lines.length, where).toBe(c.error ? 1 : 0);
      if (c.error) expect(lines[0], where).toContain(`${c.field} is`);
    }
  });

  it('report --fail-on errors exits 1 on a wrong header, 0 without', async () => {
    const siteDir = join(dir, 'report-site');
    mkdirSync(siteDir);
    const io = { out: () => undefined, err: () => undefined };
    writeFileSync(join(siteDir, 'doc.yaml'), yamlDoc('metadata.labels.tier', VALUES[3]!, false));
    expect(await reportMain(['--fail-on', 'errors', siteDir], io)).toBe(1);
    writeFileSync(join(siteDir, 'doc.yaml'), yamlDoc('metadata.labels.tier', VALUES[2]!, false));
    expect(await reportMain(['--fail-on', 'errors', siteDir], io)).toBe(0);
  });
});

describe('names YAML 1.1 reads as strings stay names (as Go reads them)', () => {
  it('e0, E5, ., -e1, 1.2.3, a MAC: no finding, the name as written', async () => {
    for (const name of ['e0', 'E5', '.', '-e1', '.e1', '1.2.3', '52:54:00:00:01:00', 'x1e3']) {
      const doc = `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\n  labels:\n    rack: ${name}\ndata:\n  k: v\n`;
      const r = await runFunction(intentValidate as never, doc);
      expect(
        r.results.filter((x) => x.severity === 'error'),
        name,
      ).toEqual([]);
      expect(readInput(doc).items[0]!.name).toBe(name);
    }
  });
});
