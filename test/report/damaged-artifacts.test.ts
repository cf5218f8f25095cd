/**
 * `report --merge` reads artifacts it did not write: every field is checked before use. A
 * damaged artifact (a field missing, of another type, null, negative, a site dropped) is one
 * line naming the file and the JSON path, exit 2, never a stack trace; an artifact still whole
 * gives a report. Mutations are generated over every path of real artifacts.
 */
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { repoRoot } from '../golden.js';
import { NOW, runReport as run, writeVariants } from './variants.js';

let root = '';
const files: string[] = [];
const NAMES = ['test-site', 'site-b'] as const;

beforeAll(async () => {
  root = relative(process.cwd(), join(repoRoot, '.e2e-out/report-damaged-artifacts'));
  rmSync(root, { recursive: true, force: true });
  const sites = writeVariants(join(root, 'sites'));
  mkdirSync(join(root, 'artifacts'), { recursive: true });
  for (const n of NAMES) {
    const file = join(root, 'artifacts', `${n}.json`);
    const r = await run(['--format', 'artifact', '--now', NOW, '--output', file, sites[n]!]);
    expect(r.code, r.err).toBe(0);
    files.push(file);
  }
});
afterAll(() => {
  if (root) rmSync(root, { recursive: true, force: true });
});

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
type Path = (string | number)[];

/** Every path into a JSON value (objects and lists alike), the root excluded. */
function paths(v: Json, at: Path = [], out: Path[] = []): Path[] {
  const entries: [string | number, Json][] = Array.isArray(v)
    ? v.map((x, i) => [i, x])
    : v && typeof v === 'object'
      ? Object.entries(v)
      : [];
  for (const [k, x] of entries) {
    out.push([...at, k]);
    paths(x, [...at, k], out);
  }
  return out;
}

const MUTATIONS = {
  delete: undefined,
  null: null,
  text: '5',
  negative: -1,
  fraction: 1.5,
  object: {},
  list: [],
  listOfJunk: [{ x: 1 }],
  boolean: true,
} as const;

/** The artifact with the value at `path` replaced (or deleted: `undefined`). */
function mutate(doc: Json, path: Path, value: Json | undefined): Json {
  const copy = structuredClone(doc) as Record<string | number, Json>;
  let node = copy as Record<string | number, Json>;
  for (const p of path.slice(0, -1)) node = node[p] as Record<string | number, Json>;
  const last = path.at(-1)!;
  if (value !== undefined) node[last] = value;
  else if (Array.isArray(node)) node.splice(last as number, 1);
  else delete node[last];
  return copy;
}

async function mergeWith(damaged: Json): Promise<{ code: number; out: string; err: string; file: string }> {
  const file = join(root, 'artifacts', 'damaged.json');
  writeFileSync(file, JSON.stringify(damaged));
  return { ...(await run(['--merge', '--format', 'json', file, files[1]!])), file };
}

/** Exit 2 with one line naming the file and a path, or a report: never a stack trace. */
function expectOneLineOrReport(r: { code: number; out: string; err: string; file: string }): void {
  expect(r.err).not.toMatch(/\n\s+at |TypeError|RangeError|Cannot read/);
  if (r.code === 2) {
    expect(r.err.trimEnd().split('\n')).toHaveLength(1);
    expect(r.err).toContain(`baremetal-krm report: ${r.file}: `);
  } else {
    expect([0, 1]).toContain(r.code);
    expect(JSON.parse(r.out).kind).toBe('CrossSiteReport');
  }
}

describe('report --merge of damaged artifacts', () => {
  it('names the file and the field of each damage the review found, exit 2', async () => {
    const doc = JSON.parse(readFileSync(files[0]!, 'utf8')) as Json;
    const cases: [Path, Json | undefined, RegExp][] = [
      [['slice'], {}, /: slice: must have required property 'summaries'/],
      [['slice', 'hosts'], null, /: slice\.hosts: must be array/],
      [['slice', 'hosts', 0], null, /: slice\.hosts\[0\]: must be object/],
      [['slice', 'divergence'], [{ x: 1 }], /: slice\.divergence\[0\]: must have required property 'site'/],
      [['slice', 'errors'], '5', /: slice\.errors: must be integer/],
      [['slice', 'errors'], -3, /: slice\.errors: must be >= 0/],
      [['slice', 'summaries', 0, 'objects'], -1, /: slice\.summaries\[0\]\.objects: must be >= 0/],
      [['slice', 'summaries'], [], /: slice\.summaries: must NOT have fewer than 1 items/],
      [['slice', 'hosts', 0, 'site'], 'elsewhere', /: slice\.hosts\[0\]\.site is not test-site/],
      [['options', 'intent'], { nope: 1 }, /: options\.intent: must NOT have additional properties/],
      [['options', 'now'], 'yesterday', /: options\.now: not an RFC 3339 time/],
      [['options', 'now'], '2025-02-30T00:00:00Z', /: options\.now: not an RFC 3339 time/],
    ];
    for (const [path, value, message] of cases) {
      const r = await mergeWith(mutate(doc, path, value));
      expect(r.code, `${path.join('.')}: ${r.err}`).toBe(2);
      expect(r.err).toMatch(message);
      expectOneLineOrReport(r);
    }
  });

  it('property: any mutation of any field is one line naming the file, or a report', async () => {
    const doc = JSON.parse(readFileSync(files[0]!, 'utf8')) as Json;
    const all = paths(doc);
    const kinds = Object.keys(MUTATIONS) as (keyof typeof MUTATIONS)[];
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...all), fc.constantFrom(...kinds), async (path, kind) => {
        expectOneLineOrReport(await mergeWith(mutate(doc, path, MUTATIONS[kind] as Json | undefined)));
      }),
      { numRuns: 300, seed: 17 },
    );
  });

  it('an unmutated artifact still merges', async () => {
    const r = await mergeWith(JSON.parse(readFileSync(files[0]!, 'utf8')) as Json);
    expect(r.code, r.err).not.toBe(2);
  });
});
