/** One BMC that fails (5xx, HTML, timeouts, bad JSON, wrong credentials, TLS, redirects, oversized answers) costs that BMC only, with one clear error; optional resources that fail are recorded as missing. End to end: simulator -> client -> discover -> results. */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { itemsStream, repoRoot, resourceList } from '../../test/golden.js';
import { runFunction, type Result } from '../../src/krm/index.js';
import { parseAddress, rangeOrigin } from './discover.js';
import { definition } from './function.js';
import { simulatedBmcs } from './test-support.js';

const tree = (t: string) => join(repoRoot, '../shared/fixtures/redfish', t);
const RACK = tree('dmtf-public-rackmount1');
const ENV = { BMC_USERNAME: 'admin', BMC_PASSWORD: 's3cr3t-Pa55' };
let tls: { key: string; cert: string };
let tmp: string;

beforeAll(() => {
  tmp = mkdtempSync(join(tmpdir(), 'bmh-tls-'));
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-keyout',
      join(tmp, 'key.pem'),
      '-out',
      join(tmp, 'cert.pem'),
      '-days',
      '1',
      '-subj',
      '/CN=127.0.0.1',
      '-addext',
      'subjectAltName=IP:127.0.0.1',
    ],
    { stdio: 'ignore' },
  );
  tls = { key: readFileSync(join(tmp, 'key.pem'), 'utf8'), cert: readFileSync(join(tmp, 'cert.pem'), 'utf8') };
});
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const bmc = simulatedBmcs({ tree: RACK, password: ENV.BMC_PASSWORD });

async function discover(bmcs: Record<string, unknown>[], extra: Record<string, unknown> = {}, env: Record<string, string> = ENV) {
  const cfg = JSON.stringify({
    apiVersion: 'baremetal-krm.dev/v1alpha1',
    kind: 'BMHFromRedfish',
    metadata: { name: 'd' },
    spec: { mode: 'discover', timeoutSeconds: 1, retries: 2, ...extra, bmcs },
  });
  const r = await runFunction(definition, resourceList([], cfg), env);
  // nothing secret, anywhere
  expect(r.output).not.toContain(ENV.BMC_PASSWORD);
  expect(r.stderr).not.toContain(ENV.BMC_PASSWORD);
  return r;
}
const byRule = (rs: Result[], rule: string) => rs.filter((r) => r.tags?.rule === rule);
const inventoryNames = (out: string) => [...itemsStream(out).matchAll(/^ {2}name: (.*)$/gm)].map((m) => m[1]);

describe('a failing BMC, through the simulator', () => {
  it('500 on a required resource is retried with backoff, then succeeds', async () => {
    const b = await bmc({ faults: [{ path: '/redfish/v1/Systems', kind: 'http-500', times: 2 }] });
    const r = await discover([{ address: b.url, name: 'n1' }]);
    expect(r.exitCode).toBe(0);
    expect(inventoryNames(r.output)).toEqual(['n1']);
    expect(b.log.filter((l) => l === 'GET /redfish/v1/Systems?only')).toHaveLength(3);
  });

  it('HTML 500 after all retries fails that BMC only, with one error naming it; the others are rendered', async () => {
    const bad = await bmc({ faults: [{ path: '/redfish/v1/Systems', kind: 'html-500' }] });
    const good = await bmc();
    const r = await discover([
      { address: bad.url, name: 'bad' },
      { address: good.url, name: 'good' },
    ]);
    expect(r.exitCode).toBe(1);
    const errs = r.results.filter((x) => x.severity === 'error');
    expect(errs).toHaveLength(1);
    expect(errs[0]!.message).toBe(`bmcs[0] (bad, ${bad.url}): discovery failed: Systems: HTTP 500 (an HTML error page)`);
    expect(errs[0]!.field?.path).toBe('spec.bmcs[0].address');
    expect(inventoryNames(r.output)).toEqual(['good']);
  });

  it('401/403/404/500 on optional resources are "missing" warnings, not failures', async () => {
    const b = await bmc({
      faults: [
        { path: '/redfish/v1/Systems/437XR1138R2/Processors', kind: 'http-403' },
        { path: '/redfish/v1/Systems/437XR1138R2/EthernetInterfaces/VLAN1', kind: 'http-404' },
        { path: '/redfish/v1/Systems/437XR1138R2/SimpleStorage', kind: 'http-401' },
      ],
    });
    const r = await discover([{ address: b.url, name: 'n1' }], { retries: 0 });
    expect(r.exitCode).toBe(0);
    const out = itemsStream(r.output);
    expect(out).toContain(
      '  missing:\n  - "EthernetInterfaces/VLAN1: HTTP 404 (Base.1.8.ResourceMissingAtURI)"\n  - "Processors: HTTP 403 (Base.1.8.InsufficientPrivilege)"\n  - "SimpleStorage: HTTP 401 (Base.1.8.InsufficientPrivilege)"\n',
    );
    expect(byRule(r.results, 'discover/missing')).toHaveLength(3);
  });

  it('a timeout is retried and then reported; truncated and invalid JSON are reported', async () => {
    const t = await bmc({ faults: [{ path: '/redfish/v1/Systems', kind: 'timeout' }] });
    const tr = await bmc({ faults: [{ path: '/redfish/v1/Systems', kind: 'truncated-json' }] });
    const inv = await bmc({
      faults: [
        { path: '/redfish/v1/Systems/437XR1138R2/Bios', kind: 'invalid-json' },
        { path: '/redfish/v1/Systems/437XR1138R2/EthernetInterfaces/VLAN1', kind: 'invalid-json' },
      ],
    });
    const r = await discover(
      [
        { address: t.url, name: 'slow' },
        { address: tr.url, name: 'cut' },
        { address: inv.url, name: 'odd' },
      ],
      { retries: 1, timeoutSeconds: 0.3 },
    );
    const msgs = r.results.filter((x) => x.severity === 'error').map((x) => x.message);
    expect(msgs).toEqual([
      `bmcs[0] (slow, ${t.url}): discovery failed: Systems: no answer within 300 ms`,
      `bmcs[1] (cut, ${tr.url}): discovery failed: Systems: invalid JSON (${Math.floor(readFileSync(join(RACK, 'redfish/v1/Systems/index.json')).length / 2)} bytes)`,
    ]);
    expect(t.log.filter((l) => l.endsWith('/Systems?only'))).toHaveLength(2);
    expect(inventoryNames(r.output)).toEqual(['odd']);
    expect(itemsStream(r.output)).toContain('EthernetInterfaces/VLAN1: invalid JSON (24 bytes)');
  });

  it('wrong credentials: 401 is one error for that BMC, and the password is never echoed', async () => {
    const b = await bmc();
    const r = await discover([{ address: b.url, name: 'n1' }], {}, { BMC_USERNAME: 'admin', BMC_PASSWORD: 'wrong-' + ENV.BMC_PASSWORD });
    expect(r.exitCode).toBe(1);
    expect(r.results.find((x) => x.severity === 'error')!.message).toBe(
      `bmcs[0] (n1, ${b.url}): discovery failed: Systems: HTTP 401 (Base.1.8.InsufficientPrivilege)`,
    );
    expect(r.output).not.toContain('wrong-');
  });

  it('missing credentials name the variables to set', async () => {
    const b = await bmc();
    const r = await discover([{ address: b.url, name: 'node-7' }], {}, {});
    expect(r.results[0]!.message).toBe(
      `bmcs[0] (node-7, ${b.url}): no credentials; set BMC_USERNAME and BMC_PASSWORD (or BMC_NODE_7_USERNAME / _PASSWORD) or a credentialsFile`,
    );
  });

  it('per-BMC credentials from env and from a mounted file', async () => {
    const a = await bmc({ password: 'pa' });
    const c = await bmc({ password: 'pc' });
    const file = join(tmp, 'creds.yaml');
    writeFileSync(file, `default: {username: admin, password: nope}\n${c.url}: {username: admin, password: pc}\n`);
    const r = await discover(
      [
        { address: a.url, name: 'a' },
        { address: c.url, name: 'c' },
      ],
      { credentialsFile: file },
      { BMC_A_USERNAME: 'admin', BMC_A_PASSWORD: 'pa' },
    );
    expect(r.exitCode).toBe(0);
    expect(inventoryNames(r.output)).toEqual(['a', 'c']);
    expect(r.output).not.toMatch(/\bpa\b|\bpc\b|nope/);
  });

  it('self-signed TLS: refused by default, accepted with insecureSkipVerify or the CA file', async () => {
    const b = await bmc({ tls });
    const r = await discover([{ address: b.url, name: 'strict' }], { retries: 0 });
    expect(r.results.find((x) => x.severity === 'error')!.message).toMatch(
      /^bmcs\[0\] \(strict, https:\/\/127\.0\.0\.1:\d+\): discovery failed: Systems: TLS certificate not trusted \(DEPTH_ZERO_SELF_SIGNED_CERT\); set insecureSkipVerify or give a CA bundle$/,
    );
    const ok = await discover([
      { address: b.url, name: 'skip', insecureSkipVerify: true },
      { address: b.url.replace('https://', '') + '/redfish/v1/Systems/437XR1138R2', name: 'ca', caFile: join(tmp, 'cert.pem') },
    ]);
    expect(ok.exitCode).toBe(0);
    expect(inventoryNames(ok.output)).toEqual(['ca', 'skip']);
    expect(itemsStream(ok.output)).toContain('    insecureSkipVerify: true\n');
  });

  it('https to a port that speaks plain HTTP: said so, not an OpenSSL string', async () => {
    const b = await bmc();
    const r = await discover([{ address: b.url.replace('http://', 'https://'), name: 'n1' }], { retries: 0 });
    expect(r.results.find((x) => x.severity === 'error')!.message).toBe(
      `bmcs[0] (n1, ${b.url.replace('http://', 'https://')}): discovery failed: Systems: the BMC answered plain HTTP on an https address; write http:// in its address`,
    );
  });

  it('paging: Members@odata.nextLink is followed', async () => {
    const b = await bmc({ pageSize: 1 });
    const r = await discover([{ address: b.url, name: 'n1' }]);
    const nics = [...itemsStream(r.output).matchAll(/^ {2}- id: (.*)$/gm)].map((m) => m[1]);
    expect(nics).toEqual(['12446A3B0411', '12446A3B8890', 'ToManager', 'VLAN1']);
    expect(b.log).toContain('GET /redfish/v1/Systems/437XR1138R2/EthernetInterfaces?$skip=3');
  });

  it('redirects: same origin followed, another origin refused without sending credentials', async () => {
    const other = await bmc();
    const b = await bmc({
      faults: [
        {
          path: '/redfish/v1/Systems/437XR1138R2/Bios',
          kind: 'redirect-other-origin',
          location: `${other.url}/redfish/v1/Systems/437XR1138R2/Bios`,
        },
        { path: '/redfish/v1/Systems', kind: 'redirect-same-origin', location: '/redfish/v1/Systems/', times: 1 },
      ],
    });
    const r = await discover([{ address: b.url, name: 'n1' }], { retries: 0 });
    expect(r.exitCode).toBe(0);
    expect(other.log).toEqual([]);
    expect(b.log.filter((l) => /^GET \/redfish\/v1\/Systems\/?(\?only)?$/.test(l))).toEqual([
      'GET /redfish/v1/Systems?only',
      'GET /redfish/v1/Systems/',
    ]);
  });

  it('responses over the size cap are refused', async () => {
    const b = await bmc({ faults: [{ path: '/redfish/v1/Systems', kind: 'huge-body' }] });
    const r = await discover([{ address: b.url, name: 'n1' }], { retries: 0, timeoutSeconds: 10 });
    expect(r.results.find((x) => x.severity === 'error')!.message).toBe(
      `bmcs[0] (n1, ${b.url}): discovery failed: Systems: response exceeds the 8388608-byte cap`,
    );
  });

  it('a BMC that fails keeps its previous inventory snapshot', async () => {
    const b = await bmc();
    const first = await discover([{ address: b.url, name: 'n1' }]);
    const items = itemsStream(first.output).split(/^---\n/m);
    await b.close();
    const cfg = JSON.stringify({
      apiVersion: 'baremetal-krm.dev/v1alpha1',
      kind: 'BMHFromRedfish',
      metadata: { name: 'd' },
      spec: { mode: 'discover', retries: 0, bmcs: [{ address: b.url, name: 'n1' }] },
    });
    const r = await runFunction(definition, resourceList(items, cfg), ENV);
    expect(r.exitCode).toBe(1);
    expect(itemsStream(r.output)).toBe(itemsStream(first.output));
    expect(byRule(r.results, 'discover/kept')).toHaveLength(1);
  });

  it('drops only what it asked for: BMCs not listed this run keep their inventory (kpt: a dropped item is a deleted file)', async () => {
    const [a, b] = [await bmc(), await bmc()];
    const first = await discover([
      { address: a.url, name: 'n1' },
      { address: b.url, name: 'n2' },
    ]);
    expect(inventoryNames(first.output)).toEqual(['n1', 'n2']);
    const items = itemsStream(first.output).split(/^---\n/m);
    const again = (bmcs: Record<string, unknown>[]) =>
      runFunction(
        definition,
        resourceList(
          items,
          JSON.stringify({
            apiVersion: 'baremetal-krm.dev/v1alpha1',
            kind: 'BMHFromRedfish',
            metadata: { name: 'd' },
            spec: { mode: 'discover', bmcs },
          }),
        ),
        ENV,
      );
    // n2's BMC is not in the list (an IPMI host, an address with userinfo left out): its inventory stays as it was
    const partial = await again([{ address: a.url, name: 'n1' }]);
    expect(partial.exitCode).toBe(0);
    expect(itemsStream(partial.output)).toBe(itemsStream(first.output));
    expect(byRule(partial.results, 'discover/not-asked').map((x) => x.message)).toEqual([
      'kept the inventory of 1 host(s) whose BMC this run did not ask (not in spec.bmcs or spec.ranges): n2; delete their files to retire them',
    ]);
    // a BMC it asked that answered with the System under another name: the old snapshot goes
    const renamed = await again([
      { address: a.url, name: 'n1-new' },
      { address: b.url, name: 'n2' },
    ]);
    expect(inventoryNames(renamed.output).sort()).toEqual(['n1-new', 'n2']);
    expect(byRule(renamed.results, 'discover/not-asked')).toEqual([]);
  });

  it('$expand opt-in: fewer requests, same inventory', async () => {
    const b = await bmc();
    const plain = await discover([{ address: b.url, name: 'n1' }]);
    const n = b.log.length;
    const e = await bmc();
    const expanded = await discover([{ address: e.url, name: 'n1' }], { expand: true });
    expect(itemsStream(expanded.output).split(e.url).join('X')).toBe(itemsStream(plain.output).split(b.url).join('X'));
    expect(e.log.length).toBeLessThan(n);
  });

  it('ranges: scans loopback addresses for service roots', async () => {
    // a /30 of loopback addresses no other test listens on: the port the kernel gave this BMC on
    // 127.31.41.2 may be another test's on 127.0.0.1 (a second service found, on a shared machine)
    const b = await bmc({ host: '127.31.41.2' });
    const r = await discover([], { ranges: [{ cidr: '127.31.41.0/30', port: b.port, scheme: 'http' }] });
    expect(r.exitCode).toBe(0);
    expect(inventoryNames(r.output)).toEqual(['web483']);
    expect(byRule(r.results, 'discover/range')[0]!.message).toBe(
      `ranges[0] 127.31.41.0/30: 1 Redfish service(s) on port ${b.port} among 2 addresses`,
    );
  });

  it('an address with a user name or password is refused, never contacted, and never echoed', async () => {
    const b = await bmc();
    const good = await bmc();
    const withUserinfo = b.url.replace('://', `://admin:${ENV.BMC_PASSWORD}@`);
    const bmcs = [
      { address: withUserinfo, name: 'n1' },
      { address: `admin:${ENV.BMC_PASSWORD}@127.0.0.1:${b.port}`, name: 'n2' },
      { address: `https://admin:${ENV.BMC_PASSWORD}/x@10.0.0.5`, name: 'n3' },
      { address: good.url, name: 'good' },
    ];
    const cfg = JSON.stringify({
      apiVersion: 'baremetal-krm.dev/v1alpha1',
      kind: 'BMHFromRedfish',
      metadata: { name: 'd' },
      spec: { mode: 'discover', timeoutSeconds: 1, bmcs },
    });
    const r = await runFunction(definition, resourceList([], cfg), ENV);
    // (the ResourceList's functionConfig is the caller's own input, echoed by the runtime)
    expect(itemsStream(r.output)).not.toContain(ENV.BMC_PASSWORD);
    expect(r.stderr).not.toContain(ENV.BMC_PASSWORD);
    expect(r.exitCode).toBe(1);
    const fix =
      'it carries a user name or password; remove them from the address and give the credentials in env BMC_USERNAME / BMC_PASSWORD (or BMC_<NAME>_USERNAME / _PASSWORD) or a credentialsFile';
    expect(r.results.filter((x) => x.severity === 'error').map((x) => [x.message, x.field?.path, x.tags?.rule])).toEqual([
      [`bmcs[0]: address "http://***@127.0.0.1:${b.port}" is refused: ${fix}`, 'spec.bmcs[0].address', 'discover/credentials-in-address'],
      [`bmcs[1]: address "***@127.0.0.1:${b.port}" is refused: ${fix}`, 'spec.bmcs[1].address', 'discover/credentials-in-address'],
      [`bmcs[2]: address "https://***@10.0.0.5" is refused: ${fix}`, 'spec.bmcs[2].address', 'discover/credentials-in-address'],
    ]);
    expect(JSON.stringify(r.results)).not.toContain(ENV.BMC_PASSWORD);
    expect(inventoryNames(r.output)).toEqual(['good']);
    expect(b.log).toEqual([]);
  });

  it('range origins are written like bmcs[] origins: default ports dropped', () => {
    expect(rangeOrigin('https', '10.0.0.5', 443)).toBe(parseAddress('10.0.0.5').origin);
    expect(rangeOrigin('https', '10.0.0.5', 443)).toBe(parseAddress('https://10.0.0.5:443/redfish/v1/Systems/1').origin);
    expect(rangeOrigin('http', '10.0.0.5', 80)).toBe(parseAddress('http://10.0.0.5').origin);
    expect(rangeOrigin('https', '10.0.0.5', 8443)).toBe('https://10.0.0.5:8443');
  });

  // binding port 80 needs root (or a low ip_unprivileged_port_start); the unit test above covers the rest
  it.runIf(process.getuid?.() === 0)('a BMC listed in bmcs[] on the default port and found again by a range is crawled once', async () => {
    const b = await bmc({ host: '127.0.0.3', port: 80 });
    const r = await discover([{ address: 'http://127.0.0.3', name: 'rack1-n1' }], { ranges: [{ cidr: '127.0.0.0/29', scheme: 'http' }] });
    expect(r.exitCode).toBe(0);
    expect(inventoryNames(r.output)).toEqual(['rack1-n1']);
    expect(b.log.filter((l) => l === 'GET /redfish/v1/Systems?only')).toHaveLength(1);
    expect(byRule(r.results, 'discover/range')[0]!.message).toBe(
      'ranges[0] 127.0.0.0/29: 1 Redfish service(s) on port 80 among 6 addresses',
    );
    expect(byRule(r.results, 'discover/summary')[0]!.message).toMatch(/^discovered 1 System\(s\) from 1 of 1 BMC\(s\)/);
  });

  it('request count per System is reported (DMTF rackmount: 12, as good as sushy)', async () => {
    const b = await bmc();
    const r = await discover([{ address: b.url, name: 'n1' }]);
    expect(byRule(r.results, 'discover/requests')[0]!.tags?.requests).toBe(String(b.log.length));
    expect(b.log.length).toBeLessThanOrEqual(12);
  });
});
