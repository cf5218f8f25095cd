#!/usr/bin/env node
// The README demo (`npm run demo`): starts the Redfish simulator (4 virtual BMCs: DMTF, Dell,
// HPE, Supermicro), discovers them into a temp copy of examples/bmh-from-redfish/discover, then
// generates BareMetalHosts with kpt (or the bundle directly when kpt is absent) and prints them.
import { spawn, spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(fileURLToPath(import.meta.url), '../..');
const fn = join(root, 'dist/bmh-from-redfish.cjs');
const env = { ...process.env, BMC_USERNAME: 'admin', BMC_PASSWORD: 'password' };
const tmp = mkdtempSync(join(tmpdir(), 'bmh-demo-'));
const site = join(tmp, 'site');
cpSync(join(root, 'examples/bmh-from-redfish/discover'), site, { recursive: true });
// the example as it was before discovery (no inventory), its Kptfile in the exec form
rmSync(join(site, 'inventory'), { recursive: true, force: true });
rmSync(join(site, '.expected'), { recursive: true, force: true });
writeFileSync(
  join(site, 'Kptfile'),
  readFileSync(join(site, 'Kptfile'), 'utf8').replace(/image: ghcr\.io\/baremetal-krm\/bmh-from-redfish:v[0-9.]+/, `exec: ${fn}`),
);

const sim = spawn(process.execPath, [join(root, 'dist/redfish-sim.cjs'), '--count', '4', '--json'], {
  stdio: ['ignore', 'pipe', 'inherit'],
});
const bmcs = await new Promise((resolve, reject) => {
  let buf = '';
  sim.stdout.on('data', (d) => {
    buf += d;
    if (buf.includes('\n')) resolve(JSON.parse(buf));
  });
  sim.on('exit', (c) => reject(new Error(`simulator exited ${c}`)));
});
try {
  console.log(`simulator: ${bmcs.map((b) => `${b.url} (${b.tree})`).join(', ')}`);
  let cfg = readFileSync(join(root, 'examples/bmh-from-redfish/discover/discover.yaml'), 'utf8');
  bmcs.forEach((b, i) => (cfg = cfg.replace(`http://127.0.0.1:${18441 + i}`, b.url)));
  const cfgFile = join(tmp, 'discover.yaml');
  writeFileSync(cfgFile, cfg);
  const hasKpt = spawnSync('kpt', ['version'], { encoding: 'utf8' }).status === 0;
  const t0 = Date.now();
  if (hasKpt) {
    const d = spawnSync('kpt', ['fn', 'eval', '--exec', fn, '--fn-config', cfgFile, site, '--truncate-output=false'], {
      env,
      encoding: 'utf8',
    });
    process.stdout.write(
      d.stderr
        .split('\n')
        .filter((l) => /\[(info|warning|error)\]/.test(l))
        .join('\n') + '\n',
    );
    if (d.status !== 0) throw new Error('discover failed');
    const tDiscover = Date.now() - t0;
    const g = spawnSync('kpt', ['fn', 'render', '--allow-exec', site, '--truncate-output=false'], { env, encoding: 'utf8' });
    if (g.status !== 0) throw new Error('generate failed:\n' + g.stderr);
    console.log(`discover ${tDiscover} ms, generate ${Date.now() - t0 - tDiscover} ms (kpt)`);
  } else {
    console.log('kpt not found: running the bundle on a ResourceList directly');
    const run = (config, items) => {
      const input = JSON.stringify({ apiVersion: 'config.kubernetes.io/v1', kind: 'ResourceList', items, functionConfig: config });
      const r = spawnSync(process.execPath, [fn], { input, env, encoding: 'utf8' });
      process.stderr.write(r.stderr);
      return r.stdout;
    };
    const yaml = await import('yaml');
    const out1 = yaml.parse(run(yaml.parse(cfg), []));
    const out2 = yaml.parse(run(yaml.parse(readFileSync(join(site, 'generate.yaml'), 'utf8')), out1.items));
    const docs = out2.items.filter((i) => i.kind === 'BareMetalHost');
    console.log(docs.map((d) => yaml.stringify(d)).join('---\n'));
    process.exit(0);
  }
  console.log(`\n# ${site}/hosts`);
  for (const f of readdirSync(join(site, 'hosts')).sort()) {
    const text = readFileSync(join(site, 'hosts', f), 'utf8');
    console.log(`---\n# hosts/${f} (BareMetalHost)\n` + text.split(/^---$/m)[0].trim());
  }
  const hosts = readdirSync(join(site, 'hosts')).length;
  console.log(
    `\nsummary: ${bmcs.length} BMCs discovered -> ${readdirSync(join(site, 'inventory')).length} HardwareInventory (inventory/), ${hosts} BareMetalHost + HardwareData (hosts/), 1 host catalogue (catalogue/). Package: ${site}`,
  );
} finally {
  sim.kill('SIGTERM');
}
