/**
 * The examples' Kptfiles name the published images (what `kpt pkg get` users run); tests and the
 * exec form swap them for this checkout's bundles.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from '../golden.js';

const version = (JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as { version: string }).version;

/** The image an example's Kptfile and kustomize function configs name for a function. */
export const KPT_IMAGE = (fn: string): string => `ghcr.io/baremetal-krm/${fn}:v${version}`;

/** Rewrites a package's Kptfile from the images to the exec bundles of this checkout (absolute paths). */
export function execForm(pkg: string): void {
  const file = join(pkg, 'Kptfile');
  const text = readFileSync(file, 'utf8');
  const next = text.replace(
    /image: ghcr\.io\/baremetal-krm\/([a-z-]+):v[0-9.]+/g,
    (_, fn: string) => `exec: ${join(repoRoot, 'dist', `${fn}.cjs`)}`,
  );
  if (next === text) throw new Error(`${file} names no baremetal-krm image`);
  writeFileSync(file, next);
}

/** The shell commands of a README's ```sh blocks (comments and blank lines dropped). */
export function readmeCommands(readme: string): string[] {
  return shellCommands(readFileSync(readme, 'utf8'));
}

/** The shell commands of the ```sh blocks in Markdown text (comments and blank lines dropped). */
export function shellCommands(markdown: string): string[] {
  const out: string[] = [];
  for (const m of markdown.matchAll(/```sh\n([\s\S]*?)```/g))
    for (const line of (m[1] ?? '').split('\n')) if (line.trim() && !line.trim().startsWith('#')) out.push(line.replace(/\s+#.*$/, ''));
  return out;
}
