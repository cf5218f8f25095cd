/**
 * GitOps: SOPS-encrypted BMC Secrets (site-from-catalogue credentials.mode: sops) for 2,000 hosts
 * from nothing, re-rendered without an identity (kept) and with one (decrypted and compared); the
 * bundle's start with and without SOPS (age is loaded only when something is encrypted); and
 * flatten (baremetal-krm render's second half) of the 2,000-host output. Cold processes, best of 3.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { flatten } from '../src/gitops/flatten.js';
import { readInput } from '../src/krm/index.js';
import { newIdentity, recipientOf } from '../src/sops/index.js';
import { fmt, startTimes, timeIt } from './_util.js';
import { input } from './site-from-catalogue.js';

const root = join(import.meta.dirname, '..');
const bundle = join(root, 'dist/site-from-catalogue.cjs');

function best(text: string, env: NodeJS.ProcessEnv, n = 3): { ms: number[]; out: string; status: number | null } {
  const ms: number[] = [];
  let out = '';
  let status: number | null = null;
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    const r = spawnSync(process.execPath, [bundle], { input: text, env, encoding: 'utf8', maxBuffer: 1 << 30 });
    ms.push(performance.now() - t);
    out = r.stdout;
    status = r.status;
  }
  return { ms, out, status };
}

const show = (ms: number[]): string =>
  `min ${fmt(Math.min(...ms), 0)} ms, median ${fmt([...ms].sort((a, b) => a - b)[1]!, 0)} ms [${ms.map((x) => fmt(x, 0)).join(', ')}]`;

export async function run(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-gitops-'));
  const identity = await newIdentity();
  writeFileSync(join(dir, 'keys.txt'), `${identity}\n`);
  const env = {
    PATH: process.env.PATH ?? '',
    SOPS_AGE_RECIPIENTS: await recipientOf(identity),
    BMC_USERNAME: 'root',
    BMC_PASSWORD: 'bench-pw',
  };
  const n = 2000;
  const withCredentials = (text: string, mode: string): string =>
    text.replace('    ipam:\n', `    credentials: {mode: ${mode}}\n    ipam:\n`);
  const sops = withCredentials(input(n), 'sops');
  const plain = input(n);
  const reference = best(plain, env);
  const fresh = best(sops, env);
  const secrets = (fresh.out.match(/\n {2}kind: Secret\n(?:.*\n)*? {4}name: node\d+-bmc-secret\n/g) ?? []).length;
  console.log(`site-from-catalogue ${n} hosts, credentials.mode: reference (no Secret written): ${show(reference.ms)}`);
  console.log(
    `site-from-catalogue ${n} hosts, credentials.mode: sops, ${secrets} Secrets encrypted from nothing (exit ${fresh.status}): ${show(fresh.ms)}`,
  );
  const items = (out: string): string => out.slice(0, out.search(/^(functionConfig|results):/m));
  const again = items(fresh.out) + sops.slice(sops.indexOf('functionConfig:'));
  const kept = best(again, env);
  console.log(
    `  re-render, no identity (every Secret kept unread): ${show(kept.ms)}; items unchanged: ${items(kept.out) === items(fresh.out)}`,
  );
  const compared = best(again, { ...env, SOPS_AGE_KEY_FILE: join(dir, 'keys.txt') });
  console.log(
    `  re-render with SOPS_AGE_KEY_FILE (${n} Secrets decrypted, MAC checked, compared): ${show(compared.ms)}; items unchanged: ${items(compared.out) === items(fresh.out)}`,
  );

  // start: age rides in the bundle as a string, evaluated only when a Secret is encrypted
  const tiny = (mode: string): string => withCredentials(input(3), mode);
  const t = startTimes({ base: ['-e', '0'], reference: [bundle], sops: [bundle] }, tiny('reference'), env, 11);
  const s = startTimes({ sops: [bundle] }, tiny('sops'), env, 11);
  console.log(
    `start, 3 hosts, median of 11 (machine loaded): node -e 0 = ${fmt(t.base!, 1)} ms; bundle, reference mode = ${fmt(t.reference!, 1)} ms (+${fmt(t.reference! - t.base!, 1)}); sops mode (age loaded, 3 Secrets encrypted) = ${fmt(s.sops!, 1)} ms`,
  );

  // flatten (render's second half): the 2,000-host output, one file per object
  // as kpt writes them: one file per item, without kpt's location annotations
  const files = readInput(fresh.out).items.map((o, i) => ({
    path: `hosts/f${i}.yaml`,
    text: o.body.replace(/^ +(internal\.)?config\.kubernetes\.io\/(path|index): .*\n/gm, ''),
  }));
  let objects = 0;
  const ms = timeIt(
    () => {
      objects = flatten(files).kept;
    },
    3,
    500,
  );
  console.log(`flatten ${files.length} items into ${objects} object files (in process): median ${fmt(ms, 0)} ms`);
  rmSync(dir, { recursive: true, force: true });
}

if (process.argv[1]?.endsWith('gitops.ts')) void run();
