/**
 * The layering rules of the codebase, checked on every import:
 * - `src/` holds libraries: nothing under `src/` imports from `functions/`;
 * - the runtime has one public entry: code outside `src/krm/` imports `src/krm/index.js` only
 *   (tests of the runtime's internals live beside them in `src/krm/`).
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '..');

function sources(dir: string, out: string[] = []): string[] {
  for (const e of readdirSync(dir)) {
    if (e === 'node_modules' || e === 'generated' || e === 'testdata' || e === 'mockups' || e.startsWith('.')) continue;
    const p = join(dir, e);
    if (statSync(p).isDirectory()) sources(p, out);
    else if (/\.(ts|mjs)$/.test(e)) out.push(p);
  }
  return out;
}

/** Every relative module specifier a file imports or re-exports (static and dynamic), resolved. */
function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const out: string[] = [];
  for (const m of text.matchAll(/(?:^|\n)\s*(?:import|export)\b[^'"]*?from\s*['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g)) {
    const spec = m[1] ?? m[2]!;
    if (spec.startsWith('.')) out.push(relative(root, resolve(dirname(file), spec)));
  }
  return out;
}

describe('layering', () => {
  it('nothing in src/ imports from functions/', () => {
    const bad: string[] = [];
    for (const f of sources(join(root, 'src')))
      for (const target of importsOf(f)) if (target.startsWith('functions/')) bad.push(`${relative(root, f)} -> ${target}`);
    expect(bad).toEqual([]);
  });

  it('outside src/krm/, the runtime is imported through src/krm/index.js only', () => {
    const bad: string[] = [];
    const files = [...sources(join(root, 'src')), ...sources(join(root, 'functions'))].filter(
      (f) => !relative(root, f).startsWith('src/krm/'),
    );
    for (const f of files)
      for (const target of importsOf(f))
        if (target.startsWith('src/krm/') && target !== 'src/krm/index.js') bad.push(`${relative(root, f)} -> ${target}`);
    expect(bad).toEqual([]);
  });

  it('the checker sees imports (a canary: it finds the runtime entry in a function)', () => {
    const fn = join(root, 'functions/intent-validate/function.ts');
    expect(importsOf(fn)).toContain('src/krm/index.js');
  });
});

describe('appending lists whose length the input decides', () => {
  // `a.push(...b)` passes every item of b as an argument: past ~120k V8 throws "Maximum call stack
  // size exceeded" (the CLI on a file of 150k objects, a BMC listing 200k members); pushAll appends
  const spreadPush = /\.push\(\s*\.\.\./;
  const shipped = [...sources(join(root, 'src')), ...sources(join(root, 'functions'))].filter((f) => !/\.test\.ts$/.test(f));

  it('shipped code never appends with a spread (src/krm/data.ts pushAll)', () => {
    const offenders = shipped.flatMap((f) =>
      readFileSync(f, 'utf8')
        .split('\n')
        .map((l, i) => ({ l, at: `${relative(root, f)}:${i + 1}` }))
        .filter(({ l }) => spreadPush.test(l) && !/^\s*(\*|\/\/)/.test(l))
        .map(({ at }) => at),
    );
    expect(offenders).toEqual([]);
  });

  it('pushAll appends more items than a call may take arguments (the reason it exists)', async () => {
    const { pushAll } = await import('../src/krm/index.js');
    const many = Array.from({ length: 300_000 }, (_, i) => i);
    expect(() => [].push(...(many as never[]))).toThrow(RangeError);
    expect(pushAll([-1], many)).toHaveLength(300_001);
  });
});
