#!/usr/bin/env node
// The greenfield journey, end to end, on the Redfish simulator. Run from anywhere after
// `npm run build`; every step prints the command it runs so you can repeat it by hand.
//
//   node examples/greenfield-site/journey.mjs             discover -> render -> flatten -> validate, in place
//   node examples/greenfield-site/journey.mjs --render    no discovery: render the committed inventory (what CI does)
//   node examples/greenfield-site/journey.mjs --dir D     work on a copy of this folder in D (tests)
//   node examples/greenfield-site/journey.mjs --from S    start from (and --check against) folder S instead of this one
//   node examples/greenfield-site/journey.mjs --check     then fail if the result differs from this folder's files
//                                                         (in a temporary copy unless --dir is given)
//
// Steps:
//   1. start 3 simulated BMCs (dist/redfish-sim.cjs: Dell R750, HPE DL385, Supermicro 821GE) on 127.0.0.1:18441-18443
//   2. discover: kpt fn eval bmh-from-redfish (mode: discover) -> site/inventory/<host>.yaml
//   3. render:   kpt fn render site (site-from-catalogue, phase-plan-expand; intent-validate as validator)
//   4. flatten:  site -> rendered/: plain YAML only (local-config and function configs dropped,
//                kpt annotations removed), a kustomization.yaml per folder
//   5. validate: baremetal-krm validate rendered/ (with the hardware classes and inventory it came
//                from) and kubectl kustomize rendered/
import { spawn, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseAllDocuments } from 'yaml';

const root = join(dirname(fileURLToPath(import.meta.url)), '../..');
const args = process.argv.slice(2);
const flag = (f) => args.includes(f);
const opt = (f) => (args.includes(f) ? args[args.indexOf(f) + 1] : undefined);
// --from DIR: another copy of this folder to start from and compare with (tests)
const here = opt('--from') ?? dirname(fileURLToPath(import.meta.url));

let dir = here;
// --check without --dir: work in a temporary copy and compare it with this folder
if (opt('--dir') || flag('--check')) {
  dir = opt('--dir') ?? mkdtempSync(join(tmpdir(), 'greenfield-'));
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  for (const e of ['discover', 'site', 'flux', 'ci']) cpSync(join(here, e), join(dir, e), { recursive: true });
  // a fresh start: no inventory, nothing generated, nothing rendered
  if (!flag('--render')) rmSync(join(dir, 'site/inventory'), { recursive: true, force: true });
  rmSync(join(dir, 'site/hosts'), { recursive: true, force: true });
  rmSync(join(dir, 'site/phase-plans'), { recursive: true, force: true });
}
const site = join(dir, 'site');
const rendered = join(dir, 'rendered');
const show = (p) => (p.startsWith(root + '/') ? relative(root, p) : p);

function step(title) {
  console.log(`\n== ${title}`);
}
function run(cmd, argv, env = {}, quiet = false) {
  const shown = [cmd === process.execPath ? 'node' : cmd, ...argv.map((a) => (a.startsWith(root + '/') ? relative(root, a) : a))];
  console.log(`$ ${[...Object.entries(env).map(([k, v]) => `${k}=${/PASSWORD/.test(k) ? '***' : v}`), ...shown].join(' ')}`);
  const r = spawnSync(cmd, argv, { cwd: root, encoding: 'utf8', env: { ...process.env, ...env }, maxBuffer: 1 << 28 });
  if (r.error) throw new Error(`${cmd}: ${r.error.message}`);
  const out = (r.stdout + r.stderr).trimEnd();
  if (out && (!quiet || r.status !== 0))
    console.log(
      out
        .split('\n')
        .map((l) => '  ' + l)
        .join('\n'),
    );
  if (r.status !== 0) throw new Error(`${cmd} ${argv[0] ?? ''} failed (exit ${r.status})`);
  return r.stdout;
}

// the simulated BMCs' credentials: BMC_USERNAME / BMC_PASSWORD from the environment when set (never printed)
const bmcUser = process.env.BMC_USERNAME ?? 'admin';
const bmcPassword = process.env.BMC_PASSWORD ?? 'password';

async function startSimulator() {
  const trees = ['libredfish-dell', 'libredfish-hpe', 'libredfish-supermicro'];
  const creds = ['--username', bmcUser, '--password', bmcPassword];
  const argv = [
    join(root, 'dist/redfish-sim.cjs'),
    '--port',
    '18441',
    '--count',
    '3',
    '--json',
    ...creds,
    ...trees.flatMap((t) => ['--tree', t]),
  ];
  console.log(
    `$ node dist/redfish-sim.cjs --port 18441 --count 3 --json --username ${bmcUser} --password *** ${trees.map((t) => `--tree ${t}`).join(' ')} &`,
  );
  const sim = spawn(process.execPath, argv, { stdio: ['ignore', 'pipe', 'pipe'] });
  let err = '';
  sim.stderr.on('data', (d) => (err += d));
  const bmcs = await new Promise((resolve, reject) => {
    let buf = '';
    sim.stdout.on('data', (d) => {
      buf += d;
      if (buf.includes('\n')) resolve(JSON.parse(buf));
    });
    sim.on('exit', (c) => reject(new Error(`the simulator exited (${c}): ${err.trim()} (are ports 18441-18443 free?)`)));
  });
  for (const b of bmcs) console.log(`  BMC ${b.url} serves ${b.tree}`);
  return sim;
}

/** Every file under d, relative, sorted. */
function files(d) {
  const out = [];
  const walk = (p) => {
    for (const e of readdirSync(p).sort()) {
      const f = join(p, e);
      if (statSync(f).isDirectory()) walk(f);
      else out.push(relative(d, f));
    }
  };
  if (existsSync(d)) walk(d);
  return out;
}

const TOOL_ANNOTATION = /^(internal\.)?config\.kubernetes\.io\/|^config\.k8s\.io\/|^kustomize\.config\.k8s\.io\//;

/** site -> rendered: only what a cluster should get, as plain YAML, with kustomization.yaml files. */
function flatten() {
  rmSync(rendered, { recursive: true, force: true });
  const kept = new Map();
  for (const f of files(site)) {
    if (!/\.ya?ml$/.test(f) || f === 'Kptfile') continue;
    const docs = parseAllDocuments(readFileSync(join(site, f), 'utf8'));
    const out = [];
    for (const doc of docs) {
      if (doc.errors.length) throw new Error(`${f}: ${doc.errors[0].message}`);
      const v = doc.toJS();
      if (!v || typeof v !== 'object') continue;
      const ann = v.metadata?.annotations ?? {};
      if (ann['config.kubernetes.io/local-config'] === 'true') continue;
      for (const k of Object.keys(ann)) if (TOOL_ANNOTATION.test(k)) doc.deleteIn(['metadata', 'annotations', k]);
      if (doc.getIn(['metadata', 'annotations'])?.items?.length === 0) doc.deleteIn(['metadata', 'annotations']);
      out.push(doc.toString().replace(/^---\n/, ''));
    }
    if (out.length) kept.set(f, out.join('---\n'));
  }
  const top = new Map();
  for (const [f, text] of kept) {
    const parts = f.split('/');
    if (parts.length < 2) throw new Error(`${f}: put deployable files in a folder (a phase entry point)`);
    mkdirSync(dirname(join(rendered, f)), { recursive: true });
    writeFileSync(join(rendered, f), text);
    const t = parts[0];
    top.set(t, [...(top.get(t) ?? []), parts.slice(1).join('/')]);
  }
  const kustomization = (resources) =>
    '# written by journey.mjs (flatten): do not edit, re-render\napiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n' +
    resources.map((r) => `- ${r}\n`).join('');
  for (const [t, list] of [...top].sort()) writeFileSync(join(rendered, t, 'kustomization.yaml'), kustomization(list.sort()));
  writeFileSync(join(rendered, 'kustomization.yaml'), kustomization([...top.keys()].sort()));
  console.log(
    `  ${show(rendered)}: ${[...kept.keys()].length} files from ${show(site)} (${files(site).length - [...kept.keys()].length} local-config/function files dropped)`,
  );
  for (const f of files(rendered)) console.log(`    ${f}`);
}

function compareWithCommitted() {
  step('check: the result is what is committed');
  const diffs = [];
  for (const sub of ['site', 'rendered']) {
    const a = join(here, sub);
    const b = join(dir, sub);
    const all = [...new Set([...files(a), ...files(b)])].sort();
    for (const f of all) {
      const x = existsSync(join(a, f)) ? readFileSync(join(a, f), 'utf8') : undefined;
      const y = existsSync(join(b, f)) ? readFileSync(join(b, f), 'utf8') : undefined;
      if (x !== y) diffs.push(`${sub}/${f}: ${x === undefined ? 'not committed' : y === undefined ? 'no longer produced' : 'differs'}`);
    }
  }
  if (diffs.length) throw new Error(`drift between the committed files and the journey's output:\n  ${diffs.join('\n  ')}`);
  console.log('  no drift');
}

async function main() {
  const kpt = (a, env) => run('kpt', a, env);
  if (!existsSync(join(root, 'dist/site-from-catalogue.cjs'))) throw new Error('run `npm run build` first');
  let sim;
  try {
    if (!flag('--render')) {
      step('1. simulated BMCs');
      sim = await startSimulator();
      step('2. discover: BMCs -> HardwareInventory (commit site/inventory/)');
      kpt(
        [
          'fn',
          'eval',
          '--exec',
          './dist/bmh-from-redfish.cjs',
          '--fn-config',
          join(dir, 'discover/discover.yaml'),
          site,
          '--truncate-output=false',
        ],
        {
          BMC_USERNAME: bmcUser,
          BMC_PASSWORD: bmcPassword,
        },
      );
      for (const f of files(join(site, 'inventory'))) console.log(`  ${show(join(site, 'inventory', f))}`);
    }
  } finally {
    sim?.kill('SIGTERM');
  }
  step('3. render: hosts from inventory + catalogues, phase plan -> Flux, validate');
  kpt(['fn', 'render', '--allow-exec', site, '--truncate-output=false']);
  step('4. flatten: rendered/ = what Flux applies');
  flatten();
  step('5. validate rendered/');
  // the rendered objects together with the local-config intent they came from (hardware
  // classes, inventory): BareMetalHost labels name a HardwareClassification, and each host is
  // checked against it with its discovered hardware
  const context = [
    join(site, 'catalogues/hardware-profiles.yaml'),
    ...files(join(site, 'inventory')).map((f) => join(site, 'inventory', f)),
  ];
  const objects = files(rendered)
    .filter((f) => !f.endsWith('kustomization.yaml'))
    .map((f) => join(rendered, f));
  run(process.execPath, [
    join(root, 'dist/baremetal-krm.cjs'),
    'validate',
    '--config',
    join(site, 'fn/intent-validate.yaml'),
    ...objects,
    ...context,
  ]);
  const built = run('kubectl', ['kustomize', rendered], {}, true);
  const kinds = {};
  for (const d of parseAllDocuments(built)) {
    const k = d.toJS()?.kind;
    if (k) kinds[k] = (kinds[k] ?? 0) + 1;
  }
  console.log(
    `  kubectl kustomize ${show(rendered)}: ${Object.entries(kinds)
      .sort()
      .map(([k, n]) => `${n} ${k}`)
      .join(', ')}`,
  );
  if (flag('--check')) {
    compareWithCommitted();
    if (!opt('--dir')) rmSync(dir, { recursive: true, force: true });
    console.log('\ndone.');
  } else console.log(`\ndone. Commit ${show(site)} and ${show(rendered)}; point Flux at it with ${show(join(dir, 'flux'))}/.`);
}

main().catch((e) => {
  console.error(`journey: ${e.message}`);
  process.exit(1);
});
