/**
 * `baremetal-krm render SITE --out DIR`: `kpt fn render` of the package (its Kptfile pipeline,
 * exec functions allowed), then flatten into DIR (flatten.ts), written safely (write-tree.ts).
 * SOPS: the nearest `.sops.yaml` above the package is handed to the functions as `SOPS_CONFIG`
 * (with the package folder, for its `path_regex`), unless the environment already names one.
 */
import { existsSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { readPackageFiles } from '../krm/index.js';
import { findSopsConfig } from '../sops/index.js';
import { type Problem, RENDER_HEADER, type SourceFile, flatten } from './flatten.js';
import { fluxPathMapper } from './flux-paths.js';
import { type WriteSummary, writeTree } from './write-tree.js';
import { redactToolOutput } from '../secrets/redact.js';

export class RenderError extends Error {}

export interface RenderOptions {
  site: string;
  out: string;
  /** skip `kpt fn render` (the package is rendered already) */
  noKpt?: boolean;
  env: Record<string, string | undefined>;
  /** kpt's output, our progress */
  log: (s: string) => void;
}

export interface RenderOutcome {
  problems: Problem[];
  summary?: WriteSummary;
  kept: number;
  dropped: number;
}

/** The package's YAML files, as kpt reads them (dot-files and dot-folders skipped; the Kptfile is not one). */
export function packageFiles(dir: string): SourceFile[] {
  return readPackageFiles(dir).filter((f) => /\.ya?ml$/.test(f.path));
}

function checkPlaces(site: string, out: string): void {
  if (!existsSync(join(site, 'Kptfile'))) throw new RenderError(`${site} is not a kpt package (no Kptfile)`);
  const rel = relative(site, out);
  const back = relative(out, site);
  if (rel === '' || !rel.startsWith('..') || !back.startsWith('..'))
    throw new RenderError(
      `--out ${out} and the package ${site} overlap: the output must be a folder outside the package, and the package outside it`,
    );
}

function runKpt(site: string, env: Record<string, string | undefined>, log: (s: string) => void): void {
  const extra: Record<string, string> = { BAREMETAL_KRM_PACKAGE_DIR: site };
  const config = env.SOPS_CONFIG ?? findSopsConfig(site);
  if (config) extra.SOPS_CONFIG = config;
  const kpt = env.KPT || 'kpt';
  // node:child_process on first use: loading it (with net and stream) costs every CLI start ~10 ms
  const r = process
    .getBuiltinModule('node:child_process')
    .spawnSync(kpt, ['fn', 'render', '--allow-exec', '--truncate-output=false', site], {
      env: { ...env, ...extra },
      encoding: 'utf8',
      maxBuffer: 1 << 28,
    });
  if (r.error) throw new RenderError(`cannot run ${kpt} (${r.error.message}): install kpt, set KPT, or render first and pass --no-kpt`);
  const text = redactToolOutput(`${r.stdout}${r.stderr}`.trimEnd());
  if (text) log(text);
  if (r.status !== 0) throw new RenderError(`kpt fn render ${site} failed (exit ${r.status}): nothing written`);
}

export function renderSite(opts: RenderOptions): RenderOutcome {
  const site = resolve(opts.site);
  const out = resolve(opts.out);
  checkPlaces(site, out);
  if (!opts.noKpt) runKpt(site, opts.env, opts.log);
  const flat = flatten(packageFiles(site), fluxPathMapper(out));
  const outcome: RenderOutcome = { problems: flat.problems, kept: flat.kept, dropped: flat.dropped };
  if (flat.problems.some((p) => p.severity === 'error')) return outcome;
  outcome.summary = writeTree(out, flat.files, RENDER_HEADER);
  return outcome;
}
