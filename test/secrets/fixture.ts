/**
 * Builds the harness fixture from the channel table: the site (airshipctl's catalogues from a
 * site-from-catalogue golden case, plus every planted item), the environment, files, simulated
 * BMCs and functionConfigs; and writes it to a folder for the file-based runs.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { readFileSync } from 'node:fs';
import { parseAllDocuments, stringify } from 'yaml';
import { splitStream } from '../../src/krm/index.js';
import { repoRoot } from '../golden.js';
import { canaryValue } from './canary.js';
import type { Channel, Fixture } from './channels.js';

type Doc = Record<string, unknown>;

export interface Planted {
  channel: Channel;
  /** the canary of site A (every run) and of site B (the report's second site) */
  values: string[];
}

export function emptyFixture(): Fixture {
  return { site: [], hosts: {}, env: {}, files: {}, configEdits: [], bmcs: [], extraBmcEntries: [], discoverSpec: {}, phasePlanEdits: [] };
}

/** Plants every channel's canary; `variant` B plants other values in the same places (the report's second site). */
export function buildFixture(channels: readonly Channel[], variant: 'A' | 'B' = 'A'): Fixture {
  const f = emptyFixture();
  for (const ch of channels) ch.plant(canaryValue(variant === 'A' ? ch.id : `${ch.id}/B`, ch.kind), f);
  return f;
}

export function plantedCanaries(channels: readonly Channel[]): Planted[] {
  return channels.map((channel) => ({
    channel,
    values: [canaryValue(channel.id, channel.kind), canaryValue(`${channel.id}/B`, channel.kind)],
  }));
}

/** The catalogues site-from-catalogue reads (airshipctl's test site), with the planted hosts added. */
function catalogues(f: Fixture): string[] {
  const text = readFileSync(join(repoRoot, 'functions/site-from-catalogue/testdata/plaintext-bmc-secrets/input.yaml'), 'utf8');
  const out: string[] = [];
  for (const d of parseAllDocuments(text)) {
    const v = d.toJS() as Doc;
    const name = (v.metadata as Doc).name;
    if (v.kind === 'Secret') continue; // the harness plants its own
    if (name === 'host-catalogue') ((v.hosts as Doc).m3 as Doc) = { ...((v.hosts as Doc).m3 as Doc), ...f.hosts };
    if (name === 'host-generation-catalogue') (v.hosts as Doc).m3 = [...((v.hosts as Doc).m3 as string[]), ...Object.keys(f.hosts)];
    out.push(stringify(v));
  }
  return out;
}

/** Every document of the site, catalogues first. */
export function siteDocs(f: Fixture): string[] {
  return [...catalogues(f), ...f.site].flatMap((d) => splitStream(d)).map(withoutLocation);
}

/** kpt places a document by its path annotation: the harness places them itself. */
function withoutLocation(d: string): string {
  return d.replace(/^ +(internal\.)?config\.kubernetes\.io\/(path|index): .*\n/gm, '');
}

/** The functionConfig of a function, with every channel's edits. */
export function functionConfig(f: Fixture, kind: string, spec: Doc, filesDir: string): string {
  const cfg: Doc = { apiVersion: 'baremetal-krm.dev/v1alpha1', kind, metadata: { name: 'harness' }, spec };
  for (const e of f.configEdits) e(cfg);
  return stringify(cfg).replaceAll('{files}', filesDir);
}

/** Writes the site (one file per document), and the files, under `dir`. */
export function writeFixture(f: Fixture, dir: string): { site: string; files: string } {
  const site = join(dir, 'site');
  const files = join(dir, 'files');
  mkdirSync(site, { recursive: true });
  mkdirSync(files, { recursive: true });
  siteDocs(f).forEach((d, i) => writeFileSync(join(site, `${String(i).padStart(2, '0')}.yaml`), d));
  for (const [name, text] of Object.entries(f.files)) writeFileSync(join(files, name), text);
  return { site, files };
}

const GRAPH = 'functions/phase-plan-expand/testdata/graph-gate-jobs';

/** airshipctl's graph plan with Job gates (a phase-plan-expand golden case), with the planted edits. */
export function phasePlanDocs(f: Fixture): string[] {
  let text = readFileSync(join(repoRoot, GRAPH, 'input.yaml'), 'utf8');
  for (const e of f.phasePlanEdits) text = e(text);
  return splitStream(text);
}

/** The spec of that golden case (Job gates, krm entrypoints). */
export function phasePlanSpec(): Doc {
  return (parseAllDocuments(readFileSync(join(repoRoot, GRAPH, 'fn-config.yaml'), 'utf8'))[0]!.toJS() as Doc).spec as Doc;
}
