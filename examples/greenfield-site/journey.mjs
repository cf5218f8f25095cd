#!/usr/bin/env node
// The greenfield journey, end to end, on the Redfish simulator. Run from anywhere after
// `npm run build`; every step prints the command it runs so you can repeat it by hand.
//
//   node examples/greenfield-site/journey.mjs             discover -> render -> validate, in place
//   node examples/greenfield-site/journey.mjs --render    no discovery: render the committed inventory (what CI does)
//   node examples/greenfield-site/journey.mjs --dir D     work on a copy of this folder in D (tests)
//   node examples/greenfield-site/journey.mjs --from S    start from (and --check against) folder S instead of this one
//   node examples/greenfield-site/journey.mjs --check     then fail if the result differs from this folder's files
//                                                         (in a temporary copy unless --dir is given)
//
// Steps:
//   1. start 3 simulated BMCs (dist/redfish-sim.cjs: Dell R750, HPE DL385, Supermicro 821GE) on 127.0.0.1:18441-18443
//   2. discover: kpt fn eval bmh-from-redfish (mode: discover) -> site/inventory/<host>.yaml
//   3. render:   baremetal-krm render site --out rendered: kpt fn render (site-from-catalogue with
//                SOPS-encrypted BMC Secrets, phase-plan-expand; intent-validate as validator), then
//                flatten into rendered/ (one file per object; the root holds only the Flux objects)
//   4. validate: kubectl kustomize of the root and of every phase | intent-validate (default
//                settings); baremetal-krm validate with the intent the render dropped (hardware
//                classes, inventory); baremetal-krm report rendered/ (hardware per host)
//   5. check (--check): sops-age decrypts every BMC Secret to the credentials used; a second render
//                changes no byte; the result equals the committed folder (encrypted Secrets compared
//                decrypted: their ciphertext is new on every encryption)
import { spawn, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { decryptSops } from 'sops-age';
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
  for (const e of ['discover', 'site', 'flux', 'ci', '.sops.yaml', 'demo.agekey']) cpSync(join(here, e), join(dir, e), { recursive: true });
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
  if (r.status !== 0) throw new Error(`${shown.slice(0, cmd === process.execPath ? 3 : 2).join(' ')} failed (exit ${r.status})`);
  return r.stdout;
}

async function startSimulator() {
  const trees = ['libredfish-dell', 'libredfish-hpe', 'libredfish-supermicro'];
  const creds = ['--username', CREDENTIALS.BMC_USERNAME, '--password', CREDENTIALS.BMC_PASSWORD];
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
    `$ node dist/redfish-sim.cjs --port 18441 --count 3 --json --username ${CREDENTIALS.BMC_USERNAME} --password *** ${trees.map((t) => `--tree ${t}`).join(' ')} &`,
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

/**
 * The demo's BMC credentials (the simulator's; BMC_USERNAME / BMC_PASSWORD from the environment
 * when set, never printed) and the identity that opens the demo Secrets.
 */
const CREDENTIALS = { BMC_USERNAME: process.env.BMC_USERNAME ?? 'admin', BMC_PASSWORD: process.env.BMC_PASSWORD ?? 'password' };
const identity = () =>
  readFileSync(join(dir, 'demo.agekey'), 'utf8')
    .split('\n')
    .find((l) => l.startsWith('AGE-SECRET-KEY-'));

/** SOPS-encrypted documents are compared decrypted: their ciphertext is new on every encryption. */
const isSops = (text) => /\nsops:\n/.test(text ?? '') && /\n {2,4}mac: ENC\[/.test(text ?? '');
async function plaintextOf(text) {
  const { sops: _sops, ...plain } = await decryptSops(text, { secretKey: identity(), fileType: 'yaml' });
  const recipients = parseAllDocuments(text)[0]
    .toJS()
    .sops.age.map((a) => a.recipient);
  return JSON.stringify({ plain, recipients: recipients.sort() });
}

async function compareWithCommitted() {
  step('check: the result is what is committed');
  const diffs = [];
  for (const sub of ['site', 'rendered']) {
    const a = join(here, sub);
    const b = join(dir, sub);
    const all = [...new Set([...files(a), ...files(b)])].sort();
    for (const f of all) {
      const x = existsSync(join(a, f)) ? readFileSync(join(a, f), 'utf8') : undefined;
      const y = existsSync(join(b, f)) ? readFileSync(join(b, f), 'utf8') : undefined;
      if (x === y) continue;
      if (isSops(x) && isSops(y) && (await plaintextOf(x)) === (await plaintextOf(y))) continue;
      diffs.push(`${sub}/${f}: ${x === undefined ? 'not committed' : y === undefined ? 'no longer produced' : 'differs'}`);
    }
  }
  if (diffs.length) throw new Error(`drift between the committed files and the journey's output:\n  ${diffs.join('\n  ')}`);
  console.log('  no drift (encrypted BMC Secrets compared decrypted)');
}

/** Every generated BMC Secret opens, with sops-age, to the credentials the render was given. */
async function checkSecrets() {
  step('check: sops-age decrypts every BMC Secret to the credentials used');
  const secrets = files(rendered).filter((f) => /secret_.*-bmc-secret\.yaml$/.test(f));
  if (secrets.length === 0) throw new Error('no encrypted BMC Secret in rendered/');
  for (const f of secrets) {
    const doc = await decryptSops(readFileSync(join(rendered, f), 'utf8'), { secretKey: identity(), fileType: 'yaml' });
    const plain = (k) => Buffer.from(doc.data[k], 'base64').toString();
    if (plain('username') !== CREDENTIALS.BMC_USERNAME || plain('password') !== CREDENTIALS.BMC_PASSWORD)
      throw new Error(`${f} does not decrypt to the credentials the render was given`);
    console.log(`  rendered/${f}: decrypts to the credentials used (user ${plain('username')})`);
  }
}

const cli = (args, env = {}, quiet = false) => run(process.execPath, [join(root, 'dist/baremetal-krm.cjs'), ...args], env, quiet);
/** Step 3: render + flatten; the credentials and the identity come from the environment, never from Git. */
function render() {
  cli(['render', site, '--out', rendered], { ...CREDENTIALS, SOPS_AGE_KEY_FILE: join(dir, 'demo.agekey') });
}

/** The folders Flux applies: the root, then every Kustomization path inside rendered/. */
function fluxFolders() {
  const out = [''];
  const prefix = 'examples/greenfield-site/rendered/';
  for (const f of files(rendered))
    for (const d of parseAllDocuments(readFileSync(join(rendered, f), 'utf8'))) {
      const v = d.toJS();
      if (v?.kind === 'Kustomization' && String(v.apiVersion).startsWith('kustomize.toolkit.fluxcd.io/'))
        out.push(String(v.spec.path).replace(/^\.\//, '').replace(prefix, ''));
    }
  return out;
}

function validate() {
  // what Flux applies, folder by folder, with intent-validate's default settings
  for (const folder of fluxFolders()) {
    const built = run('kubectl', ['kustomize', join(rendered, folder)], {}, true);
    const r = spawnSync(process.execPath, [join(root, 'dist/intent-validate.cjs')], { input: built, encoding: 'utf8' });
    const kinds = {};
    for (const d of parseAllDocuments(built)) {
      const k = d.toJS()?.kind;
      if (k) kinds[k] = (kinds[k] ?? 0) + 1;
    }
    const what = Object.entries(kinds)
      .sort()
      .map(([k, n]) => `${n} ${k}`)
      .join(', ');
    const summary = r.stderr.trim().split('\n').pop() || 'no findings';
    console.log(`  | node dist/intent-validate.cjs (default settings): ${what || 'nothing'}: ${summary}`);
    if (r.status !== 0) throw new Error(`intent-validate failed on ${show(join(rendered, folder))}:\n${r.stderr}`);
  }
  // the rendered objects together with the local-config intent they came from (hardware
  // classes, inventory): each host is checked against the HardwareClassification its label names
  const context = [
    join(site, 'catalogues/hardware-profiles.yaml'),
    ...files(join(site, 'inventory')).map((f) => join(site, 'inventory', f)),
  ];
  const objects = files(rendered)
    .filter((f) => !f.endsWith('kustomization.yaml'))
    .map((f) => join(rendered, f));
  cli(['validate', '--quiet', '--config', join(site, 'fn/intent-validate.yaml'), ...objects, ...context]);
  const report = cli(['report', rendered], {}, true);
  const hosts = report.split('\n').filter((l) => /^ {2}\S+ {2,}(r750|dl385|sys821ge)-01 /.test(l));
  console.log(hosts.join('\n'));
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
        CREDENTIALS,
      );
      for (const f of files(join(site, 'inventory'))) console.log(`  ${show(join(site, 'inventory', f))}`);
    }
  } finally {
    sim?.kill('SIGTERM');
  }
  step('3. render: hosts (BMC Secrets SOPS-encrypted) + Flux plan, validated, flattened into rendered/');
  render();
  step('4. validate what Flux applies');
  validate();
  if (flag('--check')) {
    await checkSecrets();
    step('check: a second render changes no byte');
    const before = new Map([
      ...files(site).map((f) => [`site/${f}`, readFileSync(join(site, f), 'utf8')]),
      ...files(rendered).map((f) => [`rendered/${f}`, readFileSync(join(rendered, f), 'utf8')]),
    ]);
    render();
    const after = [...files(site).map((f) => `site/${f}`), ...files(rendered).map((f) => `rendered/${f}`)];
    const changed = after.filter((f) => before.get(f) !== readFileSync(join(dir, f), 'utf8'));
    if (changed.length || after.length !== before.size)
      throw new Error(`the second render changed ${changed.join(', ') || 'the file set'}`);
    console.log(`  ${after.length} files, no byte changed`);
    await compareWithCommitted();
    if (!opt('--dir')) rmSync(dir, { recursive: true, force: true });
    console.log('\ndone.');
  } else console.log(`\ndone. Commit ${show(site)} and ${show(rendered)}; point Flux at it with ${show(join(dir, 'flux'))}/.`);
}

main().catch((e) => {
  console.error(`journey: ${e.message}`);
  process.exit(1);
});
