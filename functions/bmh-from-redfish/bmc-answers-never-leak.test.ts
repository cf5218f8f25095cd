/**
 * A BMC's answers never carry the credentials out: an error body that echoes the request's
 * Authorization header or session token is reported by status, MessageIds and path only, and
 * anything else from the BMC (a resource that repeats them) is scrubbed before it is reported or
 * written. Every output (items, results, stderr) is scanned for the password, the Basic
 * credentials and the session tokens, plain, base64, base64url, URL-encoded and hex.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { itemsStream, repoRoot, resourceList } from '../../test/golden.js';
import { runFunction } from '../../src/krm/index.js';
import { loadTree, type SimBmc } from '../../src/redfish-sim/server.js';
import { TreeEditor } from '../../src/redfish-sim/scenarios.js';
import { definition } from './function.js';
import { simulatedBmcs } from './test-support.js';

const RACK = join(repoRoot, '../shared/fixtures/redfish/dmtf-public-rackmount1');
const SYS = '/redfish/v1/Systems/437XR1138R2';
const USER = 'admin';
const PASSWORD = 'Canary-pw-7f3a9c';
const ENV = { BMC_USERNAME: USER, BMC_PASSWORD: PASSWORD };

const bmc = simulatedBmcs({ tree: RACK, password: PASSWORD });

function forms(secret: string): string[] {
  const b = Buffer.from(secret);
  return [secret, b.toString('base64').replace(/=+$/, ''), b.toString('base64url'), encodeURIComponent(secret), b.toString('hex')];
}
const SECRETS = [PASSWORD, `${USER}:${PASSWORD}`];

async function discover(b: SimBmc, extra: Record<string, unknown> = {}) {
  const cfg = JSON.stringify({
    apiVersion: 'baremetal-krm.dev/v1alpha1',
    kind: 'BMHFromRedfish',
    metadata: { name: 'd' },
    spec: { mode: 'discover', retries: 0, timeoutSeconds: 2, ...extra, bmcs: [{ address: b.url, name: 'n1' }] },
  });
  const r = await runFunction(definition, resourceList([], cfg), ENV);
  const everything = [itemsStream(r.output), r.output, r.stderr, JSON.stringify(r.results)].join('\n');
  for (const s of SECRETS)
    for (const f of forms(s)) {
      expect(everything, `${f} (a form of a credential)`).not.toContain(f);
      expect(everything.toLowerCase()).not.toContain(f.toLowerCase());
    }
  // the simulator's session tokens are `tok-<n>-<random>`
  expect(everything).not.toMatch(/tok-\d+-[a-z0-9]+/);
  return { r, everything };
}

describe("a BMC's answers never carry the credentials out", () => {
  it('an error body echoing the Authorization header on an optional resource: a missing entry with status, MessageId and path', async () => {
    const b = await bmc({ faults: [{ path: `${SYS}/EthernetInterfaces/VLAN1`, kind: 'echo-credentials' }] });
    const { r } = await discover(b);
    expect(r.exitCode).toBe(0);
    expect(itemsStream(r.output)).toContain('  missing:\n  - "EthernetInterfaces/VLAN1: HTTP 500 (Base.1.8.InternalError)"\n');
  });

  it('the same on the Systems collection: one error for the BMC, nothing of the body in it', async () => {
    const b = await bmc({ faults: [{ path: '/redfish/v1/Systems', kind: 'echo-credentials' }] });
    const { r } = await discover(b);
    expect(r.results.filter((x) => x.severity === 'error').map((x) => x.message)).toEqual([
      `bmcs[0] (n1, ${b.url}): discovery failed: Systems: HTTP 500 (Base.1.8.InternalError)`,
    ]);
  });

  it('with session auth the echoed session token is not repeated either', async () => {
    const b = await bmc({ faults: [{ path: `${SYS}/SimpleStorage`, kind: 'echo-credentials' }] });
    const { r } = await discover(b, { auth: 'session' });
    expect(r.exitCode).toBe(0);
    expect(b.stats).toEqual({ created: 1, deleted: 1 });
    expect(itemsStream(r.output)).toContain('SimpleStorage: HTTP 500 (Base.1.8.InternalError)');
  });

  it('a BMC that puts the credentials into a resource (serial number, host name): scrubbed from the inventory and every result', async () => {
    const t = new TreeEditor(loadTree(RACK));
    t.patch(SYS, { SerialNumber: PASSWORD, HostName: Buffer.from(`${USER}:${PASSWORD}`).toString('base64'), SKU: `x-${PASSWORD}-x` });
    const b = await bmc({ tree: t.tree });
    const { r } = await discover(b);
    expect(r.exitCode).toBe(0);
    expect(itemsStream(r.output)).toContain('    serialNumber: "***"\n');
    expect(itemsStream(r.output)).toContain('    sku: x-***-x\n');
  });

  it('MessageIds that are not ids (free text, the credentials themselves) are not repeated', async () => {
    const auth = `Basic ${Buffer.from(`${USER}:${PASSWORD}`).toString('base64')}`;
    const server = createServer((_req, res) => {
      res.writeHead(500, { 'content-type': 'application/json' });
      const info = [{ MessageId: auth }, { MessageId: PASSWORD }, { MessageId: 'Base.1.8.InternalError' }];
      res.end(JSON.stringify({ error: { code: `${USER}:${PASSWORD}`, message: auth, '@Message.ExtendedInfo': info } }));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const { r } = await discover({ url } as SimBmc);
      expect(r.results.filter((x) => x.severity === 'error').map((x) => x.message)).toEqual([
        `bmcs[0] (n1, ${url}): discovery failed: Systems: HTTP 500 (Base.1.8.InternalError)`,
      ]);
    } finally {
      server.close();
    }
  });
});
