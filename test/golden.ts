/**
 * The golden-case harness every function uses (like kustomize's krusty tests and the kpt
 * catalog's examples): a case is a folder `functions/<fn>/testdata/<case>/` with
 *   input.yaml      the input resources (a YAML stream; may be empty or absent)
 *   fn-config.yaml  the functionConfig (absent: none)
 *   env.yaml        environment variables for the function (optional map)
 *   expected.yaml   the exact output items, as a YAML stream
 *   results.yaml    the exact results (absent: none expected)
 * Each case runs in process and through the built bundle (same bytes out, same exit code),
 * and again on its own output, which must come back unchanged (idempotency).
 * `UPDATE_GOLDEN=1 npm test` rewrites expected.yaml and results.yaml: review the diff.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse, stringify } from 'yaml';
import { describe, expect, it } from 'vitest';
import { EMIT_OPTIONS, readInput, runFunction, type FunctionDefinition } from '../src/krm/index.js';
import { indentItem, splitStream } from '../src/krm/index.js';

export const repoRoot = join(import.meta.dirname, '..');

/** A ResourceList with `docs` as items and `config` as functionConfig, as kpt would send it. */
export function resourceList(docs: string[], config?: string): string {
  let s = 'apiVersion: config.kubernetes.io/v1\nkind: ResourceList\n';
  s += docs.length ? 'items:\n' + docs.map((d) => indentItem(d, 0)).join('') : 'items: []\n';
  if (config?.trim()) {
    s +=
      'functionConfig:\n' +
      config
        .replace(/\n$/, '')
        .split('\n')
        .map((l) => (l ? '  ' + l : l))
        .join('\n') +
      '\n';
  }
  return s;
}

/** The output items of a ResourceList as a YAML stream. */
export function itemsStream(output: string): string {
  return readInput(output)
    .items.map((i) => (i.body.endsWith('\n') ? i.body : i.body + '\n'))
    .join('---\n');
}

function readOpt(dir: string, file: string): string | undefined {
  const p = join(dir, file);
  return existsSync(p) ? readFileSync(p, 'utf8') : undefined;
}

export function runBundle(
  fn: string,
  input: string,
  env: Record<string, string> = {},
): { stdout: string; stderr: string; status: number | null } {
  const r = spawnSync(process.execPath, [join(repoRoot, 'dist', `${fn}.cjs`)], {
    input,
    env: { PATH: process.env.PATH ?? '', ...env },
    encoding: 'utf8',
    maxBuffer: 1 << 30,
  });
  return { stdout: r.stdout, stderr: r.stderr, status: r.status };
}

export function describeGolden<S>(def: FunctionDefinition<S>, testdata: string): void {
  const cases = existsSync(testdata)
    ? readdirSync(testdata)
        .filter((c) => statSync(join(testdata, c)).isDirectory())
        .sort()
    : [];
  describe(`${def.name} golden cases`, () => {
    it('has golden cases', () => {
      expect(cases.length).toBeGreaterThan(0);
    });
    for (const c of cases) {
      it(c, async () => {
        const dir = join(testdata, c);
        const docs = splitStream(readOpt(dir, 'input.yaml') ?? '');
        const config = readOpt(dir, 'fn-config.yaml');
        const env = (parse(readOpt(dir, 'env.yaml') ?? '{}') ?? {}) as Record<string, string>;
        const input = resourceList(docs, config);
        const first = await runFunction(def, input, env);
        const items = itemsStream(first.output);
        const results = first.results.length ? stringify(first.results, EMIT_OPTIONS) : undefined;
        if (process.env.UPDATE_GOLDEN) {
          writeFileSync(join(dir, 'expected.yaml'), items);
          if (results) writeFileSync(join(dir, 'results.yaml'), results);
        }
        expect(items).toBe(readOpt(dir, 'expected.yaml') ?? '');
        expect(results).toBe(readOpt(dir, 'results.yaml'));
        expect(first.exitCode).toBe(first.results.some((r) => r.severity === 'error') ? 1 : 0);

        // the bundle gives the same bytes and exit code
        const bundled = runBundle(def.name, input, env);
        expect(bundled.stdout).toBe(first.output);
        expect(bundled.status).toBe(first.exitCode);

        // idempotent: running on its own output changes nothing
        if (first.exitCode === 0) {
          const again = await runFunction(def, resourceList(splitStream(items), config), env);
          expect(itemsStream(again.output)).toBe(items);
        }
      });
    }
  });
}

/**
 * One-rule cases written inline, like kustomize's krusty tests (`th.WriteF(...); th.Run();
 * th.AssertActualEqualsExpected(...)`): the input files and the exact expected output stand in
 * the test itself.
 *
 *   const th = harness(definition);
 *   const r = await th.run({ 'hosts.yaml': '...', 'secret.yaml': '...' }, { config: '...' });
 *   r.expectItems('...the exact output stream...');
 *   r.expectResults([{ severity: 'error', rule: 'reference', message: /not in the input/ }]);
 *
 * Each file becomes the items of one file (with kpt's path and index annotations, as
 * `kpt fn render` sends them); the run is in process and, with `bundle: true`, through the
 * built bundle too (same bytes).
 */
export interface ExpectedResult {
  severity: 'error' | 'warning' | 'info';
  rule?: string;
  message?: string | RegExp;
  field?: string;
  file?: string;
}

export function harness<S>(def: FunctionDefinition<S>) {
  return {
    async run(files: Record<string, string>, opts: { config?: string; env?: Record<string, string>; bundle?: boolean } = {}) {
      const docs: string[] = [];
      for (const [path, text] of Object.entries(files))
        splitStream(text).forEach((d, i) => {
          docs.push(withPathAnnotations(d, path, i));
        });
      const input = resourceList(docs, opts.config);
      const out = await runFunction(def, input, opts.env ?? {});
      if (opts.bundle) {
        const b = runBundle(def.name, input, opts.env ?? {});
        expect(b.stdout).toBe(out.output);
        expect(b.status).toBe(out.exitCode);
      }
      return {
        ...out,
        items: itemsStream(out.output),
        expectItems(expected: string): void {
          expect(itemsStream(out.output)).toBe(expected);
        },
        expectResults(expected: ExpectedResult[]): void {
          const actual = out.results.map((r) => ({
            severity: r.severity,
            rule: r.tags?.rule,
            message: r.message,
            field: r.field?.path,
            file: r.file?.path,
          }));
          expect(actual).toHaveLength(expected.length);
          expected.forEach((e, i) => {
            const a = actual[i]!;
            expect(a.severity, a.message).toBe(e.severity);
            if (e.rule !== undefined) expect(a.rule, a.message).toBe(e.rule);
            if (e.field !== undefined) expect(a.field, a.message).toBe(e.field);
            if (e.file !== undefined) expect(a.file, a.message).toBe(e.file);
            if (typeof e.message === 'string') expect(a.message).toBe(e.message);
            else if (e.message) expect(a.message).toMatch(e.message);
          });
        },
      };
    },
  };
}

/** A document with kpt's `config.kubernetes.io/path` and `index` annotations added. */
function withPathAnnotations(doc: string, path: string, index: number): string {
  const ann = `    config.kubernetes.io/path: '${path}'\n    config.kubernetes.io/index: '${index}'\n    internal.config.kubernetes.io/path: '${path}'\n    internal.config.kubernetes.io/index: '${index}'\n`;
  if (/^metadata:\n/m.test(doc)) {
    if (/^ {2}annotations:\n/m.test(doc)) return doc.replace(/^( {2}annotations:\n)/m, `$1${ann}`);
    return doc.replace(/^metadata:\n/m, `metadata:\n  annotations:\n${ann}`);
  }
  return `${doc.endsWith('\n') ? doc : doc + '\n'}metadata:\n  annotations:\n${ann}`;
}
