/**
 * The output side of the secrets harness, in process: every function, `baremetal-krm validate`
 * and `baremetal-krm report` in every format, one row each. A run returns its outputs (stdout,
 * stderr, results, written files); a new output is one more row (`RUNS`).
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runFunction, type FunctionDefinition } from '../../src/krm/index.js';
import { runFleet } from '../../src/cli/fleet.js';
import { runPlan } from '../../src/cli/plan.js';
import { runValidate } from '../../src/cli/validate.js';
import { reportMain } from '../../src/report/cli.js';
import { mockupsDir } from '../../src/redfish-sim/mockups.js';
import { startBmc, type SimBmc } from '../../src/redfish-sim/server.js';
import { definition as bmhFromRedfish } from '../../functions/bmh-from-redfish/function.js';
import { definition as siteFromCatalogue } from '../../functions/site-from-catalogue/function.js';
import { definition as phasePlanExpand } from '../../functions/phase-plan-expand/function.js';
import { definition as intentValidate } from '../../functions/intent-validate/function.js';
import { resourceList } from '../golden.js';
import type { Fixture } from './channels.js';
import { functionConfig, phasePlanDocs, phasePlanSpec, siteDocs, writeFixture } from './fixture.js';

export interface Output {
  /** `intent-validate: results`, `report --format html: file` */
  name: string;
  text: string;
  /** YAML whose items are the user's own files: only what is new or changed in them counts */
  items?: boolean;
}

/** What every run may use: the fixture, the site on disk, the running simulated BMCs. */
export interface World {
  fixture: Fixture;
  /** the same places with other values: the report's second site */
  other: Fixture;
  dir: string;
  site: string;
  otherSite: string;
  files: string;
  bmcs: { name: string; url: string; session: boolean }[];
  env: Record<string, string>;
}

export interface Run {
  id: string;
  run(w: World): Promise<Output[]>;
}

type Doc = Record<string, unknown>;

/** Starts the fixture's simulated BMCs and writes its site; `close()` stops and removes everything. */
export async function startWorld(fixture: Fixture, other: Fixture): Promise<World & { close(): Promise<void> }> {
  const dir = mkdtempSync(join(tmpdir(), 'secrets-harness-'));
  const { site, files } = writeFixture(fixture, join(dir, 'a'));
  const { site: otherSite } = writeFixture(other, join(dir, 'b'));
  const sims: SimBmc[] = [];
  const bmcs: World['bmcs'] = [];
  for (const b of fixture.bmcs) {
    // on an address of their own: a test elsewhere that probes 127.0.0.1 ranges must not find them
    const sim = await startBmc({ tree: join(mockupsDir(), 'dmtf-public-rackmount1'), username: 'admin', host: '127.0.0.9', ...b.sim });
    sims.push(sim);
    bmcs.push({ name: b.name, url: sim.url, session: b.session ?? false });
  }
  return {
    fixture,
    other,
    dir,
    site,
    otherSite,
    files,
    bmcs,
    env: fixture.env,
    async close() {
      await Promise.all(sims.map((s) => s.close()));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** The discover spec of a run: the BMCs (session ones or the others) and every planted spec field. */
export function discoverSpec(w: World, session: boolean): Doc {
  const bmcs: Doc[] = w.bmcs.filter((b) => b.session === session).map((b) => ({ address: b.url, name: b.name }));
  if (!session) bmcs.push(...w.fixture.extraBmcEntries);
  return { ...w.fixture.discoverSpec, mode: 'discover', auth: session ? 'session' : 'basic', timeoutSeconds: 2, retries: 0, bmcs };
}

/** A function's runs: its kind and spec per run. */
export const FUNCTION_RUNS: { id: string; def: FunctionDefinition<never>; kind: string; spec: (w: World) => Doc; plan?: boolean }[] = [
  { id: 'bmh-from-redfish discover', def: bmhFromRedfish as never, kind: 'BMHFromRedfish', spec: (w) => discoverSpec(w, false) },
  { id: 'bmh-from-redfish discover (session)', def: bmhFromRedfish as never, kind: 'BMHFromRedfish', spec: (w) => discoverSpec(w, true) },
  {
    id: 'bmh-from-redfish generate',
    def: bmhFromRedfish as never,
    kind: 'BMHFromRedfish',
    spec: () => ({ hardwareData: true, hostCatalogue: true, namespace: 'harness' }),
  },
  { id: 'site-from-catalogue', def: siteFromCatalogue as never, kind: 'SiteFromCatalogue', spec: () => ({}) },
  { id: 'phase-plan-expand', def: phasePlanExpand as never, kind: 'PhasePlanExpand', spec: phasePlanSpec, plan: true },
  { id: 'intent-validate', def: intentValidate as never, kind: 'IntentValidate', spec: () => ({ now: '2026-01-01T00:00:00Z' }) },
];

function capture(): { io: { out: (s: string) => void; err: (s: string) => void }; out: () => string; err: () => string } {
  let out = '';
  let err = '';
  return { io: { out: (s) => void (out += s), err: (s) => void (err += s) }, out: () => out, err: () => err };
}

/** Runs `fn` with the fixture's environment as process.env (the CLI reads it there). */
async function withEnv<T>(env: Record<string, string>, fn: () => Promise<T>): Promise<T> {
  const saved = { ...process.env };
  Object.assign(process.env, env);
  try {
    return await fn();
  } finally {
    for (const k of Object.keys(env)) if (saved[k] === undefined) delete process.env[k];
    Object.assign(process.env, saved);
  }
}

export const REPORT_FORMATS = ['text', 'json', 'markdown', 'html', 'sarif', 'junit'] as const;
export const VALIDATE_FORMATS = ['text', 'sarif', 'junit'] as const;
export const PLAN_FORMATS = ['text', 'markdown', 'json', 'sarif', 'junit'] as const;

export const RUNS: Run[] = [
  ...FUNCTION_RUNS.map(
    (f): Run => ({
      id: `${f.id} (in process)`,
      async run(w) {
        const config = functionConfig(w.fixture, f.kind, f.spec(w), w.files);
        const docs = [...(f.plan ? phasePlanDocs(w.fixture) : []), ...siteDocs(w.fixture)];
        const r = await runFunction(f.def, resourceList(docs, config), w.env);
        return [
          { name: `${f.id}: stdout`, text: r.output, items: true },
          { name: `${f.id}: stderr`, text: r.stderr },
          { name: `${f.id}: results`, text: JSON.stringify(r.results) },
        ];
      },
    }),
  ),
  ...VALIDATE_FORMATS.map(
    (format): Run => ({
      id: `baremetal-krm validate --format ${format} (in process)`,
      async run(w) {
        const c = capture();
        await withEnv(w.env, () => runValidate(['--format', format, w.site], c.io));
        return [
          { name: `validate --format ${format}: stdout`, text: c.out() },
          { name: `validate --format ${format}: stderr`, text: c.err() },
        ];
      },
    }),
  ),
  ...PLAN_FORMATS.map(
    (format): Run => ({
      id: `baremetal-krm plan --format ${format} (in process)`,
      async run(w) {
        // site B -> site A: every planted value changes
        const c = capture();
        await withEnv(w.env, () => runPlan(['--format', format, w.otherSite, w.site], c.io));
        return [
          { name: `plan --format ${format}: stdout`, text: c.out() },
          { name: `plan --format ${format}: stderr`, text: c.err() },
        ];
      },
    }),
  ),
  {
    id: 'baremetal-krm fleet sites (in process)',
    async run(w) {
      const c = capture();
      await withEnv(w.env, () => runFleet(['sites', w.dir, '--format', 'json'], c.io));
      return [
        { name: 'fleet sites: stdout', text: c.out() },
        { name: 'fleet sites: stderr', text: c.err() },
      ];
    },
  },
  ...REPORT_FORMATS.map(
    (format): Run => ({
      id: `baremetal-krm report --format ${format} (in process)`,
      async run(w) {
        const c = capture();
        const file = join(w.dir, `report.${format}`);
        // to stdout and to --output: the same text, so --output once (json)
        const output = format === 'json' ? ['--output', file] : [];
        await withEnv(w.env, () =>
          reportMain(['--format', format, '--now', '2026-01-01T00:00:00Z', ...output, `a=${w.site}`, `b=${w.otherSite}`], c.io),
        );
        return [
          format === 'json'
            ? { name: `report --format ${format}: --output file`, text: readFileSync(file, 'utf8') }
            : { name: `report --format ${format}: stdout`, text: c.out() },
          { name: `report --format ${format}: stderr`, text: c.err() },
        ];
      },
    }),
  ),
];
