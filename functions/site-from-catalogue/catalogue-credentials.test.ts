/**
 * BMC credentials in catalogues never leave: a `user:pw@` bmcAddress is refused with the user info
 * masked (generate, new site, distil), malformed credentials and addresses are refused naming host
 * and field, and no message, result or written file holds a credential, in process or through the
 * bundle, in plain, base64, base64url, URL-encoded or hex form.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { splitStream } from '../../src/krm/index.js';
import { resourceList, runBundle } from '../../test/golden.js';
import { caseFile, type Run, run, runConfig } from './test-support.js';

const GENERATED_BY = 'baremetal-krm.dev/generated-by';

function forms(secret: string): string[] {
  const b = Buffer.from(secret, 'utf8');
  return [secret, b.toString('base64'), b.toString('base64url'), encodeURIComponent(secret), b.toString('hex')];
}

/** Every form of every canary found in `text`. */
function leaks(text: string, canaries: string[]): string[] {
  return canaries.flatMap((c) => forms(c).filter((f) => text.includes(f)));
}

/** What the function said and wrote: results and the items it generated (input items pass through unchanged). */
function said(r: Run): string {
  const written = splitStream(r.items).filter((d) => d.includes(GENERATED_BY));
  return JSON.stringify(r.results) + written.join('\n');
}

const network =
  'apiVersion: airshipit.org/v1alpha1\nkind: NetworkCatalogue\nmetadata:\n  name: networking\nspec:\n  commonHostNetworking:\n    links:\n    - {id: oam, name: oam, type: phy}\n    networks:\n    - {id: oam-ipv4, type: ipv4, link: oam, netmask: 255.255.255.0}\n    services: []\n';

function catalogue(entry: Record<string, unknown>): Record<string, unknown> {
  return {
    apiVersion: 'airshipit.org/v1alpha1',
    kind: 'VariableCatalogue',
    metadata: { name: 'host-catalogue' },
    hosts: { m3: { node01: { bootMode: 'UEFI', macAddress: '52:54:00:00:00:01', ipAddresses: { 'oam-ipv4': '10.23.25.11' }, ...entry } } },
  };
}

describe('a user:password in a catalogue bmcAddress is refused, masked', () => {
  const canaries = ['S3CRETPW1', 'S3CRET/PW@2', 'S3CRETUSER3', 'S3CRETPW3', 'S3CRETPW3B', '98765432101', 'admin:S3CRETPW1'];
  const input = splitStream(caseFile('error-bmc-credentials', 'input.yaml'));
  const config = caseFile('error-bmc-credentials', 'fn-config.yaml');

  it('in process: every bad host is an error naming host and field; nothing is written; no credential in any result', async () => {
    const r = await runConfig(input, config);
    expect(r.exitCode).toBe(1);
    const errors = r.results.filter((x) => x.severity === 'error');
    expect(errors.map((x) => x.field?.path)).toEqual([
      'hosts.m3.node01.bmcAddress',
      'hosts.m3.node02.bmcAddress',
      'hosts.m3.node03.bmcUsername',
      'hosts.m3.node03.bmcPassword',
      'hosts.m3.node04.bmcUsername',
      'hosts.m3.node04.bmcPassword',
      'hosts.m3.node05.bmcAddress',
      'hosts.m3.node06.bmcAddress',
      'hosts.m3.node07.bmcAddress',
      'hosts.m3.node08.bmcAddress',
    ]);
    for (const e of errors) expect(e.message).toMatch(/^host node0\d: /);
    expect(errors[0]!.message).toContain('redfish+https://***@10.23.25.11/redfish/v1/Systems/1');
    expect(said(r)).not.toContain(GENERATED_BY);
    expect(leaks(said(r), canaries)).toEqual([]);
    expect(JSON.stringify(r.results)).not.toContain('[object Object]');
  });

  it('through the bundle: neither stderr nor the results of the output hold a credential', () => {
    const b = runBundle('site-from-catalogue', resourceList(input, config));
    expect(b.status).toBe(1);
    const at = b.stdout.search(/^results:$/m);
    const results = at < 0 ? '' : b.stdout.slice(at);
    expect(results).toContain('host/credentials-in-address');
    expect(leaks(b.stderr + results, canaries)).toEqual([]);
  });

  it('a new site writes nothing, so no catalogue "with credentials stripped" holds the address', async () => {
    const host = catalogue({ bmcAddress: 'redfish+https://admin:S3CRETPW1@10.23.25.11/redfish/v1/Systems/1' });
    const spec = stringify({ site: { name: 's', type: '../../type/gating', catalogues: [host] } });
    const r = await run([network], spec);
    expect(r.exitCode).toBe(1);
    expect(r.results.filter((x) => x.severity === 'error').map((x) => x.tags?.rule)).toEqual(['host/credentials-in-address']);
    expect(r.docs).toHaveLength(1); // only the input NetworkCatalogue
    expect(leaks(said(r), canaries)).toEqual([]);
  });

  it('distil does not copy a BareMetalHost address with user info into the catalogue', async () => {
    const bmh = `apiVersion: metal3.io/v1alpha1\nkind: BareMetalHost\nmetadata:\n  name: node01\nspec:\n  bootMACAddress: 52:54:00:00:00:01\n  bmc:\n    address: redfish://root:S3CRETPW1@10.23.25.11/redfish/v1/Systems/1\n    credentialsName: node01-bmc-secret\n  networkData:\n    name: node01-network-data\n`;
    const nd =
      'apiVersion: v1\nkind: Secret\nmetadata:\n  name: node01-network-data\nstringData:\n  networkData: |\n    links: []\n    networks: []\n';
    const r = await run([network, bmh, nd], 'mode: distil');
    expect(r.exitCode).toBe(1);
    expect(r.results.map((x) => x.tags?.rule)).toContain('distil/credentials-in-address');
    expect(said(r)).not.toContain('host-catalogue');
    expect(leaks(said(r), canaries)).toEqual([]);
  });
});

describe('credentials and addresses of any shape: written as given, or refused naming the field, never quoted', () => {
  const CANARY = 'K4NARY-pw';
  const scalarish = fc.oneof(
    fc.string({ maxLength: 12 }).map((s) => `${CANARY}${s}`),
    fc.integer(),
    fc.double({ noNaN: true }),
    fc.boolean(),
    fc.constant(null),
  );
  const anyValue = fc.oneof(
    scalarish,
    fc.array(scalarish, { maxLength: 3 }),
    fc.dictionary(fc.constantFrom('x', 'y'), scalarish, { maxKeys: 2 }),
  );
  const credential = fc.oneof(
    { arbitrary: fc.string({ minLength: 1, maxLength: 12 }).map((s) => `${CANARY}${s}`), weight: 3 },
    { arbitrary: anyValue, weight: 1 },
  );
  const address = fc.oneof(
    { arbitrary: fc.constant('redfish+https://10.23.25.11/redfish/v1/Systems/1'), weight: 6 },
    fc.constant(`redfish+https://admin:${CANARY}@10.23.25.11/redfish/v1/Systems/1`),
    fc.integer({ min: 0, max: 200_000 }).map((p) => `redfish+https://10.23.25.11:${p}/redfish/v1/Systems/1`),
    fc.constant('idrac://10.23.25.11/redfish/v1/Systems/1'),
    fc.constant('redfish+https://10.23.25.11 /redfish/v1/Systems/1'),
    anyValue,
  );

  it('in emit mode', async () => {
    let written = 0;
    await fc.assert(
      fc.asyncProperty(credential, credential, address, async (bmcUsername, bmcPassword, bmcAddress) => {
        const r = await run([network, stringify(catalogue({ bmcUsername, bmcPassword, bmcAddress }))], 'credentials: {mode: emit}');
        const text = JSON.stringify(r.results);
        expect(text).not.toContain('[object Object]');
        expect(leaks(text, [CANARY])).toEqual([]);
        const secret = r.docs.find((d) => d.kind === 'Secret' && (d.metadata as { name: string }).name === 'node01-bmc-secret');
        if (r.exitCode === 0) {
          const data = secret!.data as Record<string, string>;
          expect(Buffer.from(data.username!, 'base64').toString('utf8')).toBe(bmcUsername);
          expect(Buffer.from(data.password!, 'base64').toString('utf8')).toBe(bmcPassword);
          const bmh = r.docs.find((d) => d.kind === 'BareMetalHost')!;
          expect((bmh.spec as { bmc: { address: string } }).bmc.address).toBe(bmcAddress);
          expect(bmcAddress).not.toContain('@');
          written++;
        } else {
          expect(secret).toBeUndefined();
          const fields = r.results.filter((x) => x.severity === 'error').map((x) => x.field?.path);
          expect(fields.length).toBeGreaterThan(0);
          for (const f of fields) expect(f).toMatch(/^hosts\.m3\.node01\.(bmcUsername|bmcPassword|bmcAddress)$/);
        }
      }),
      { numRuns: 80 },
    );
    expect(written).toBeGreaterThan(0);
  });
});
