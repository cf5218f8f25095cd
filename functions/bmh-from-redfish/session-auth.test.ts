/** Session auth: login (any 2xx with a token), one shared re-login on expiry, every session logged out, and everything, logout included, within the BMC's deadline. */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { itemsStream, repoRoot, resourceList } from '../../test/golden.js';
import { runFunction, type Result } from '../../src/krm/index.js';
import { scenarioBmc } from '../../src/redfish-sim/scenarios.js';
import { RedfishClient } from '../../src/redfish/client.js';
import { definition } from './function.js';
import { simulatedBmcs } from './test-support.js';

const RACK = join(repoRoot, '../shared/fixtures/redfish/dmtf-public-rackmount1');
const ENV = { BMC_USERNAME: 'admin', BMC_PASSWORD: 's3cr3t-Pa55' };

const bmc = simulatedBmcs({ tree: RACK, password: ENV.BMC_PASSWORD });

async function discover(bmcs: Record<string, unknown>[], extra: Record<string, unknown> = {}) {
  const cfg = JSON.stringify({
    apiVersion: 'baremetal-krm.dev/v1alpha1',
    kind: 'BMHFromRedfish',
    metadata: { name: 'd' },
    spec: { mode: 'discover', timeoutSeconds: 1, retries: 2, ...extra, bmcs },
  });
  const r = await runFunction(definition, resourceList([], cfg), ENV);
  expect(r.output).not.toContain(ENV.BMC_PASSWORD);
  expect(r.stderr).not.toContain(ENV.BMC_PASSWORD);
  return r;
}
const inventoryNames = (out: string) => [...itemsStream(out).matchAll(/^ {2}name: (.*)$/gm)].map((m) => m[1]);

describe('session auth', () => {
  it('sessions: logged out after the crawl; 503 session exhaustion is one error', async () => {
    const b = await bmc();
    const r = await discover([{ address: b.url, name: 'n1' }], { auth: 'session' });
    expect(r.exitCode).toBe(0);
    expect(b.stats).toEqual({ created: 1, deleted: 1 });
    expect(b.log.some((l) => l.startsWith('GET') && l.includes('Systems'))).toBe(true);
    const full = await bmc({ maxSessions: 0 });
    const r2 = await discover([{ address: full.url, name: 'n2' }], { auth: 'session', retries: 0 });
    expect(r2.results.find((x) => x.severity === 'error')!.message).toBe(
      `bmcs[0] (n2, ${full.url}): discovery failed: Systems: session login refused: HTTP 503 (the BMC has no free session; close others or use Basic auth)`,
    );
  });

  const SYS = '/redfish/v1/Systems/437XR1138R2';
  const warnings = (rs: Result[]) => rs.filter((x) => x.severity === 'warning').map((x) => x.message);

  it('a resource that always answers 401 to a valid session: one re-login for it, a "missing" warning, every session logged out', async () => {
    const b = await bmc({ faults: [{ path: `${SYS}/SimpleStorage`, kind: 'http-401' }] });
    const r = await discover([{ address: b.url, name: 'n1' }], { auth: 'session', retries: 0 });
    expect(r.exitCode).toBe(0);
    expect(warnings(r.results)).toEqual([
      `bmcs[0] (n1, ${b.url}): 437XR1138R2: SimpleStorage: HTTP 401 (Base.1.8.InsufficientPrivilege) (recorded as missing; the rest of the System was read)`,
    ]);
    expect(b.stats).toEqual({ created: 2, deleted: 2 });
    expect(b.sessions()).toBe(0);
    expect(b.log.filter((l) => l === `GET ${SYS}/SimpleStorage?only`)).toHaveLength(2);
  });

  it('a 401 on a session that has not answered yet is "forbidden": no re-login, and close() logs it out', async () => {
    const b = await bmc({ maxSessions: 1000, faults: [{ path: `${SYS}/Bios`, kind: 'http-401' }] });
    const c = new RedfishClient({
      origin: b.url,
      credentials: { username: 'admin', password: ENV.BMC_PASSWORD },
      auth: 'session',
      retries: 0,
      timeoutMs: 1000,
    });
    await expect(c.get(`${SYS}/Bios`)).rejects.toThrow('HTTP 401 (Base.1.8.InsufficientPrivilege)');
    expect(await c.get(SYS)).toMatchObject({ Id: '437XR1138R2' });
    await expect(c.get(`${SYS}/Bios`)).rejects.toThrow('HTTP 401 (Base.1.8.InsufficientPrivilege)');
    await c.close();
    expect(b.stats.created).toBeLessThanOrEqual(2);
    expect(b.stats.deleted).toBe(b.stats.created);
    expect(b.sessions()).toBe(0);
  });

  it('an expired session seen by four requests at once: one shared re-login, nothing missing', async () => {
    const nics = ['12446A3B0411', '12446A3B8890', 'ToManager', 'VLAN1'];
    const b = await bmc({ faults: nics.map((n) => ({ path: `${SYS}/EthernetInterfaces/${n}`, kind: 'http-401' as const, times: 1 })) });
    const r = await discover([{ address: b.url, name: 'n1' }], { auth: 'session', retries: 0 });
    expect(r.exitCode).toBe(0);
    expect(warnings(r.results)).toEqual([]);
    expect(b.stats).toEqual({ created: 2, deleted: 2 });
    expect(b.log.filter((l) => l.startsWith('POST'))).toHaveLength(2);
  });

  it('the login is retried on 5xx like any request', async () => {
    const b = await bmc({ faults: [{ path: '/redfish/v1/SessionService/Sessions', kind: 'http-500', times: 2 }] });
    const r = await discover([{ address: b.url, name: 'n1' }], { auth: 'session', retries: 2 });
    expect(r.exitCode).toBe(0);
    expect(inventoryNames(r.output)).toEqual(['n1']);
    expect(b.log.filter((l) => l.startsWith('POST'))).toHaveLength(3);
    expect(b.stats).toEqual({ created: 1, deleted: 1 });
  });

  it('a failed login is not remembered: the next request logs in again', async () => {
    const b = await bmc({ faults: [{ path: '/redfish/v1/SessionService/Sessions', kind: 'invalid-json', times: 1 }] });
    const c = new RedfishClient({
      origin: b.url,
      credentials: { username: 'admin', password: ENV.BMC_PASSWORD },
      auth: 'session',
      retries: 0,
      timeoutMs: 1000,
    });
    await expect(c.get(SYS)).rejects.toThrow('session login answered without X-Auth-Token');
    expect(await c.get(SYS)).toMatchObject({ Id: '437XR1138R2' });
    await c.close();
    expect(b.stats).toEqual({ created: 1, deleted: 1 });
  });

  it('a login answered 204 No Content with X-Auth-Token and Location is accepted, and logged out as usual', async () => {
    const b = await bmc(scenarioBmc('session-204'));
    const r = await discover([{ address: b.url, name: 'n1' }], { auth: 'session' });
    expect(r.exitCode).toBe(0);
    expect(inventoryNames(r.output)).toEqual(['n1']);
    expect(b.stats).toEqual({ created: 1, deleted: 1 });
  });

  it('a BMC that hangs after the login: the crawl and the logout both end within the BMC deadline, one error, the other BMC written', async () => {
    // before, the logout was not bounded by the deadline: it waited the whole 30 s request timeout (past this test's own timeout)
    const hangs = await bmc(scenarioBmc('hang-after-login'));
    const answers = await bmc();
    const r = await discover(
      [
        { address: hangs.url, name: 'hangs' },
        { address: answers.url, name: 'answers' },
      ],
      { auth: 'session', bmcDeadlineSeconds: 1, timeoutSeconds: 30, retries: 0 },
    );
    expect(r.results.filter((x) => x.severity === 'error').map((x) => x.message)).toEqual([
      `bmcs[0] (hangs, ${hangs.url}): discovery failed: Systems: the 1 s deadline for this BMC passed; the crawl stopped`,
    ]);
    expect(inventoryNames(r.output)).toEqual(['answers']);
    // the logout was sent, inside the deadline, and given up with it
    expect(hangs.log.filter((l) => l.startsWith('DELETE'))).toHaveLength(1);
    expect(answers.stats).toEqual({ created: 1, deleted: 1 });
  });
});
