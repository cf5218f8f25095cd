/**
 * A fleet scan survives what a fleet holds: every Redfish tree in ../shared/fixtures/redfish in one
 * discovery (the two DMTF trees whose Systems have the same host name included), then generate:
 * a BareMetalHost for every bootable System, warnings for what needed a choice, exit 0.
 */
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { itemsStream, repoRoot, resourceList } from '../../test/golden.js';
import { runFunction, splitStream } from '../../src/krm/index.js';
import { startBmc, type SimBmc } from '../../src/redfish-sim/server.js';
import { scenarioBmc } from '../../src/redfish-sim/scenarios.js';
import { definition } from './function.js';

const FIXTURES = join(repoRoot, '../shared/fixtures/redfish');
const trees = readdirSync(FIXTURES)
  .filter((t) => existsSync(join(FIXTURES, t, 'redfish/v1/index.json')))
  .sort();
const ENV = { BMC_USERNAME: 'admin', BMC_PASSWORD: 'password' };
let bmcs: SimBmc[] = [];
beforeAll(async () => {
  // every fixture tree, and the GPU baseboard scenario: a System that is no host
  bmcs = await Promise.all([...trees.map((t) => startBmc({ tree: join(FIXTURES, t) })), startBmc(scenarioBmc('gpu-baseboard'))]);
});
afterAll(async () => {
  await Promise.all(bmcs.map((b) => b.close()));
});

const config = (spec: Record<string, unknown>) =>
  JSON.stringify({ apiVersion: 'baremetal-krm.dev/v1alpha1', kind: 'BMHFromRedfish', metadata: { name: 'scan' }, spec });
const names = (stream: string, kind: string) =>
  splitStream(stream)
    .filter((d) => d.includes(`kind: ${kind}\n`))
    .map((d) => /^ {2}name: (.*)$/m.exec(d)![1]);

describe('a scan of every fixture tree in one run', () => {
  it('writes a BareMetalHost for every bootable System, with warnings, exit 0', async () => {
    expect(trees).toEqual(expect.arrayContaining(['dmtf-public-localstorage', 'dmtf-public-rackmount1']));
    const found = await runFunction(
      definition,
      resourceList([], config({ mode: 'discover', bmcs: bmcs.map((b) => ({ address: b.url })) })),
      ENV,
    );
    const errors = found.results.filter((r) => r.severity === 'error');
    expect(errors).toEqual([]);
    expect(found.exitCode).toBe(0);
    const inventories = names(itemsStream(found.output), 'HardwareInventory');
    // 6 trees with one System, the bladed tree with 4, the GPU scenario with its host and its baseboard
    expect(inventories).toHaveLength(6 + 4 + 2);
    // the two DMTF trees would both be web483 (and the Supermicro tree and the GPU scenario, made from it,
    // both s889914x3710910): each named from its BMC address, both BMCs named in each warning
    const twins = found.results.filter((r) => r.tags?.rule === 'discover/duplicate-name');
    expect(twins).toHaveLength(4);
    const web483 = twins.filter((w) => w.message.includes('"web483"'));
    expect(web483).toHaveLength(2);
    for (const w of web483)
      expect(w.message).toMatch(/would be named "web483" like bmcs\[\d+\] \(http:\/\/127\.0\.0\.1:\d+\) System 437XR1138R2;/);
    expect(inventories).not.toContain('web483');
    expect(found.results.filter((r) => r.tags?.rule === 'discover/not-a-host')).toHaveLength(1);

    const generated = await runFunction(definition, resourceList(splitStream(itemsStream(found.output)), config({})), {});
    expect(generated.results.filter((r) => r.severity === 'error')).toEqual([]);
    expect(generated.exitCode).toBe(0);
    const hosts = names(itemsStream(generated.output), 'BareMetalHost');
    expect(hosts).toHaveLength(inventories.length - 1);
    expect(hosts).toEqual(inventories.filter((n) => n !== '"1654922000318"'));
    expect(generated.results.some((r) => r.severity === 'warning')).toBe(true);
  });
});
