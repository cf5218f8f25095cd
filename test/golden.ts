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
