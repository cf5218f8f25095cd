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
