import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv } from 'ajv';
import { parse, parseAllDocuments, stringify } from 'yaml';
import { describe, expect, it } from 'vitest';
import { describeGolden, itemsStream, repoRoot, resourceList } from '../../test/golden.js';
import { runFunction } from '../../src/krm/index.js';
import { startBmc } from '../../src/redfish-sim/server.js';
import { scenarioBmc } from '../../src/redfish-sim/scenarios.js';
import { definition } from './function.js';
import { chooseBootMac, chooseRootDisk, naturalCompare } from '../../src/model/host-policy.js';
import { applyTemplate, parseAddress } from './discover.js';

const testdata = join(import.meta.dirname, 'testdata');
const fixtures = join(repoRoot, '../shared/fixtures');
const ENV = { BMC_USERNAME: 'admin', BMC_PASSWORD: 'password' };

describeGolden(definition, testdata);

function discoverConfig(bmcs: Record<string, unknown>[], extra: Record<string, unknown> = {}): string {
  return JSON.stringify({
    apiVersion: 'baremetal-krm.dev/v1alpha1',
    kind: 'BMHFromRedfish',
    metadata: { name: 'discover' },
    spec: { mode: 'discover', ...extra, bmcs },
  });
}

async function discover(
  bmcs: Record<string, unknown>[],
  extra: Record<string, unknown> = {},
  env: Record<string, string> = ENV,
  items: string[] = [],
) {
  return runFunction(definition, resourceList(items, discoverConfig(bmcs, extra)), env);
}

/** discover.yaml of a golden case: the BMCs to serve (a fixture tree or a simulator scenario), the address each stands for. */
interface CaseBmc {
  tree?: string;
  scenario?: string;
  name?: string;
  address: string;
}
interface DiscoverCase extends CaseBmc {
  /** more of the discover functionConfig's spec */
  config?: Record<string, unknown>;
  bmcs?: CaseBmc[];
}

/** Serves the BMCs of a case, discovers them, and maps the simulator's addresses (and names made from them) to the case's. */
async function discoverCase(meta: DiscoverCase, items: string[] = []) {
  const list = meta.bmcs ?? [meta];
  const sims = await Promise.all(
    list.map((b) => startBmc(b.scenario ? scenarioBmc(b.scenario) : { tree: join(fixtures, 'redfish', b.tree!) })),
  );
  const toCase = (text: string) =>
    sims.reduce((t, sim, i) => {
      const address = list[i]!.address;
      const host = new URL(/:\/\//.test(address) ? address : `https://${address}`);
      // a fallback name is made from the BMC address: the simulator's port becomes the case's
      return t
        .split(sim.url)
        .join(address)
        .split(`127-0-0-1-${sim.port}-`)
        .join(`${host.hostname.replace(/\./g, '-')}${host.port ? `-${host.port}` : ''}-`);
    }, text);
  const toSim = (text: string) => sims.reduce((t, sim, i) => t.split(list[i]!.address).join(sim.url), text);
  try {
    const bmcs = list.map((b, i) => ({ address: sims[i]!.url, ...(b.name ? { name: b.name } : {}) }));
    const r = await discover(bmcs, meta.config ?? {}, ENV, items.map(toSim));
    // names made from the simulator's ports sort by port: sorted again by the case's names, as discovery sorts
    const docs = toCase(itemsStream(r.output))
      .split(/^---\n/m)
      .filter(Boolean);
    const nameOf = (d: string) => /^ {2}name: (.*)$/m.exec(d)?.[1] ?? '';
    const stream = docs.sort((a, b) => naturalCompare(nameOf(a), nameOf(b))).join('---\n');
    return { r, sims, toCase, stream };
  } finally {
    await Promise.all(sims.map((s) => s.close()));
  }
}

describe('discovery of every fixture tree and scenario gives the committed inventory of its golden case', () => {
  const cases = readdirSync(testdata).filter((c) => existsSync(join(testdata, c, 'discover.yaml')));
  for (const c of cases) {
    it(c, async () => {
      const meta = parse(readFileSync(join(testdata, c, 'discover.yaml'), 'utf8')) as DiscoverCase;
      const { r, stream, toCase } = await discoverCase(meta);
      // what discovery said, without the per-BMC request counts (they have their own test)
      const said = r.results
        .filter((x) => x.tags?.rule !== 'discover/requests')
        .map((x) => ({ severity: x.severity, rule: x.tags?.rule, message: toCase(x.message) }));
      const results = stringify(said, { lineWidth: 0 });
      const file = join(testdata, c, 'input.yaml');
      const resultsFile = join(testdata, c, 'discover-results.yaml');
      if (process.env.UPDATE_GOLDEN) {
        writeFileSync(file, stream);
        writeFileSync(resultsFile, results);
      }
      expect(stream).toBe(readFileSync(file, 'utf8'));
      expect(results).toBe(readFileSync(resultsFile, 'utf8'));
      expect(r.exitCode).toBe(said.some((x) => x.severity === 'error') ? 1 : 0);
      // re-running discovery on unchanged hardware changes no byte
      if (meta.scenario !== 'hang-after-login') {
        const again = await discoverCase(meta, stream.split(/^---\n/m));
        expect(again.stream).toBe(stream);
      }
    });
  }
});

describe('generated objects validate against the current Metal3 CRDs', () => {
  const ajv = new Ajv({ strict: false, allErrors: true, validateFormats: false });
  const crd = (f: string) => {
    const d = parse(readFileSync(join(fixtures, 'schemas/metal3', f), 'utf8')) as {
      spec: { versions: { name: string; schema: { openAPIV3Schema: object } }[] };
    };
    return ajv.compile(d.spec.versions.find((v) => v.name === 'v1alpha1')!.schema.openAPIV3Schema);
  };
  const validators: Record<string, ReturnType<typeof crd>> = {
    BareMetalHost: crd('metal3.io_baremetalhosts.yaml'),
    HardwareData: crd('metal3.io_hardwaredata.yaml'),
  };
  it('every BareMetalHost and HardwareData in the expected outputs', () => {
    let n = 0;
    for (const c of readdirSync(testdata)) {
      const f = join(testdata, c, 'expected.yaml');
      if (!existsSync(f)) continue;
      for (const doc of parseAllDocuments(readFileSync(f, 'utf8'))) {
        const o = doc.toJS() as { kind?: string } | null;
        const v = o?.kind ? validators[o.kind] : undefined;
        if (!v) continue;
        n++;
        expect(v(o), `${c}: ${JSON.stringify(v.errors)}`).toBe(true);
      }
    }
    expect(n).toBeGreaterThanOrEqual(10);
  });
});

describe('policies', () => {
  it('boot MAC: boot order first, never host-interface / virtual / duplicate', () => {
    expect(
      chooseBootMac([
        { id: 'ToManager', mac: 'aa:bb:cc:dd:ee:fe', type: 'host-interface', pxe: true, bootPriority: 0 },
        { id: 'VLAN1', mac: '12:44:6a:3b:04:11', type: 'virtual' },
        { id: '1', mac: '12:44:6a:3b:04:11' },
        { id: '2', mac: '12:44:6a:3b:88:90', pxe: true, bootPriority: 3 },
        { id: '3', mac: '12:44:6a:3b:88:91', httpBoot: true, bootPriority: 1 },
      ]).mac,
    ).toBe('12:44:6a:3b:88:91');
    expect(
      chooseBootMac([
        { id: '10', mac: '00:00:00:00:00:10' },
        { id: '2', mac: '00:00:00:00:00:02', enabled: false },
        { id: '3', mac: '00:00:00:00:00:03' },
      ]).mac,
    ).toBe('00:00:00:00:00:03');
    expect(chooseBootMac([{ id: 'ToManager', mac: 'aa:bb:cc:dd:ee:fe', type: 'host-interface' }]).mac).toBeUndefined();
  });
  it('root disk: smallest non-rotational >= N GiB, not a RAID member, serial then unique WWN', () => {
    const G = 2 ** 30;
    const r = chooseRootDisk(
      [
        { name: 'a', sizeBytes: 10 * G, rotational: false, serialNumber: 'A' },
        { name: 'b', sizeBytes: 500 * G, rotational: false, serialNumber: 'B', raidMember: true },
        { name: 'c', sizeBytes: 900 * G, rotational: false, wwn: '0x1' },
        { name: 'd', sizeBytes: 100 * G, rotational: true, serialNumber: 'D' },
      ],
      20,
    );
    expect(r.hints).toEqual({ wwn: '0x1' });
    expect(
      chooseRootDisk(
        [
          { name: 'x', sizeBytes: 100 * G, rotational: false, wwn: '0x1' },
          { name: 'y', sizeBytes: 200 * G, wwn: '0x1' },
        ],
        20,
      ).hints,
    ).toBeUndefined();
    expect(chooseRootDisk([{ name: 'd', sizeBytes: 100 * G, rotational: true, serialNumber: 'D' }], 20).warning).toMatch(
      /no non-rotational/,
    );
  });
  it('naming template and addresses', () => {
    const inv = {
      bmc: { address: 'x', systemPath: '/redfish/v1/Systems/1' },
      system: { hostName: '', serviceTag: 'F54P1G3', serialNumber: 'S' },
      disks: [],
      nics: [],
    };
    expect(applyTemplate('{hostName|serviceTag|serialNumber}', inv, '1')).toBe('f54p1g3');
    expect(applyTemplate('rack1-{serialNumber}', inv, '1')).toBe('rack1-s');
    expect(applyTemplate('{hostName}', inv, '1')).toBeUndefined();
    expect(parseAddress('10.0.0.5:8443')).toEqual({ origin: 'https://10.0.0.5:8443', systemPath: undefined });
    expect(parseAddress('https://10.0.0.5/redfish/v1/systems/1/')).toEqual({
      origin: 'https://10.0.0.5',
      systemPath: '/redfish/v1/Systems/1',
    });
  });
});

describe('generate mode edges', () => {
  it('an inventory whose bmc.address carries a password: an error, no BareMetalHost, the password nowhere in items or results', async () => {
    const inv =
      'apiVersion: baremetal-krm.dev/v1alpha1\nkind: HardwareInventory\nmetadata:\n  name: n1\nspec:\n  bmc:\n    address: https://root:hunter2@10.0.0.5\n    systemPath: /redfish/v1/Systems/1\n  system: {}\n  disks: []\n  nics: []\n';
    const r = await runFunction(definition, resourceList([inv]), {});
    expect(r.exitCode).toBe(1);
    const errs = r.results.filter((x) => x.severity === 'error');
    expect(errs.map((x) => [x.message, x.field?.path])).toEqual([
      [
        'HardwareInventory n1: spec.bmc.address carries a user name or password; remove them (credentials belong in the BMC Secret) or re-run discover',
        'spec.bmc.address',
      ],
    ]);
    expect(itemsStream(r.output)).not.toMatch(/kind: BareMetalHost/);
    expect(JSON.stringify(r.results) + r.stderr).not.toContain('hunter2');
  });

  it('with no inventory items changes nothing', async () => {
    const cm = 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\ndata:\n  a: "1"\n';
    const r = await runFunction(definition, resourceList([cm]), {});
    expect(r.exitCode).toBe(0);
    expect(itemsStream(r.output)).toBe(cm);
  });
});
