/**
 * The reference catalogues: every document follows its JSON schema (ajv, at test time), the
 * schemas accept airshipctl's and the HWCC's own examples (the shape is theirs) and reject
 * what they must, the hardware classes match the real servers they say they match (with the
 * HWCC semantics as intent-validate implements them), and intent-validate passes them.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv, type ValidateFunction } from 'ajv';
import { parse, stringify } from 'yaml';
import { describe, expect, it } from 'vitest';
import { runFunction } from '../../src/krm/index.js';
import { definition as intentValidate } from '../../functions/intent-validate/function.js';
import { repoRoot, resourceList } from '../golden.js';
import { catalogueDocs, cataloguesDir, readDoc, type Doc } from './catalogue-files.js';

const fixtures = join(repoRoot, '../shared/fixtures');
const ajv = new Ajv({ allErrors: true, strict: true, validateFormats: false });
const validators = new Map<string, ValidateFunction>();
function validator(name: string): ValidateFunction {
  const known = validators.get(name);
  if (known) return known;
  const v = ajv.compile(JSON.parse(readFileSync(join(cataloguesDir, 'schemas', `${name}.schema.json`), 'utf8')) as object);
  validators.set(name, v);
  return v;
}
function errors(name: string, doc: Doc): string[] {
  const v = validator(name);
  return v(doc)
    ? []
    : (v.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message}${e.params ? ' ' + JSON.stringify(e.params) : ''}`);
}
const clone = (d: Doc): Doc => JSON.parse(JSON.stringify(d)) as Doc;

const docs = catalogueDocs();

describe('catalogues follow their schemas', () => {
  it('has one catalogue of each kind', () => {
    expect([...new Set(docs.map((d) => d.schema))].sort()).toEqual([
      'hardware-classification',
      'hardware-profile',
      'host-catalogue',
      'network-catalogue',
      'versions-catalogue',
    ]);
  });
  for (const d of docs) {
    it(`${d.file}#${d.index} (${d.doc.kind} ${d.doc.metadata?.name}) is valid ${d.schema}`, () => {
      expect(d.schema, 'no schema for this document').not.toBe('');
      expect(errors(d.schema, d.doc)).toEqual([]);
    });
  }
  it('every catalogue is local-config (never applied to a cluster, dropped from rendered output)', () => {
    for (const d of docs) expect(d.doc.metadata?.annotations?.['config.kubernetes.io/local-config'], d.file).toBe('true');
  });
  it('each hardware class has its airshipctl hardware profile of the same name, and the reverse', () => {
    const classes = docs
      .filter((d) => d.schema === 'hardware-classification')
      .map((d) => d.doc.metadata.name as string)
      .sort();
    const profiles = docs
      .filter((d) => d.schema === 'hardware-profile')
      .map((d) => (d.doc.metadata.name as string).replace(/^hardwareprofile-/, ''))
      .sort();
    expect(profiles).toEqual(classes);
    expect(classes).toEqual(['compute-general', 'compute-large-memory', 'control-plane', 'edge-small', 'storage-nvme']);
  });
  it('hardware classes: every minimum is at most its maximum (the controller would match nothing)', () => {
    for (const d of docs.filter((x) => x.schema === 'hardware-classification')) {
      const hc = d.doc.spec.hardwareCharacteristics as Record<string, Record<string, number>>;
      for (const [section, v] of Object.entries(hc))
        for (const [k, min] of Object.entries(v)) {
          if (!k.startsWith('minimum')) continue;
          const max = v[k.replace('minimum', 'maximum')];
          if (max !== undefined) expect(min, `${d.doc.metadata.name} ${section}.${k}`).toBeLessThanOrEqual(max);
        }
    }
  });
  it('host catalogue: every hardwareProfile is one of the catalogue classes, every MAC is a quoted string', () => {
    const classes = new Set(docs.filter((d) => d.schema === 'hardware-classification').map((d) => d.doc.metadata.name));
    const hosts = docs.find((d) => d.schema === 'host-catalogue')!.doc.hosts.m3 as Record<string, Doc>;
    expect(Object.keys(hosts).sort()).toEqual(['dl385-01', 'r750-01', 'sys821ge-01']);
    for (const [name, h] of Object.entries(hosts)) {
      expect(classes.has(h.hardwareProfile), name).toBe(true);
      expect(h.labels['baremetal-krm.dev/hardware-profile'], name).toBe(h.hardwareProfile);
    }
    const text = readFileSync(join(cataloguesDir, 'hosts/host-catalogue.yaml'), 'utf8');
    expect(text.match(/^\s*(macAddress|oam|pxe): (?!")/gm)).toBeNull();
  });
});

describe('schemas keep the upstream shape', () => {
  const airship = join(fixtures, 'airship/airshipctl/manifests');
  it('airshipctl base NetworkCatalogue and VersionsCatalogue are valid', () => {
    const net = readDoc(join(airship, 'function/airshipctl-base-catalogues/networking.yaml'));
    const ver = readDoc(join(airship, 'function/airshipctl-base-catalogues/versions-airshipctl.yaml'));
    expect(errors('network-catalogue', net)).toEqual([]);
    expect(errors('versions-catalogue', ver)).toEqual([]);
  });
  it('airshipctl hardwareprofile-example is a valid hardware profile', () => {
    const hp = readDoc(join(airship, 'function/hardwareprofile-example/hardwareprofile.yaml'));
    // upstream writes `rotational: False`: YAML 1.1 reads it as a boolean, so does our reader here
    expect(errors('hardware-profile', hp)).toEqual([]);
  });
  it('the HWCC sample HardwareClassification is valid', () => {
    const hc = readDoc(
      join(fixtures, 'airship/hardware-classification-controller/config/samples/metal3.io_v1alpha1_hardwareclassification.yaml'),
    );
    expect(errors('hardware-classification', hc)).toEqual([]);
  });
  it('the airshipctl test-site host catalogue is refused: it has plaintext BMC passwords', () => {
    const hosts = readDoc(join(airship, 'site/test-site/target/catalogues/shareable/hosts.yaml'));
    const e = errors('host-catalogue', hosts);
    expect(e).toContain('/hosts/m3/node01/bmcUsername must NOT be valid {}');
    // and nothing else is wrong with it once the credentials are gone
    const clean = clone(hosts);
    for (const h of Object.values(clean.hosts.m3 as Record<string, Doc>)) {
      delete h.bmcUsername;
      delete h.bmcPassword;
    }
    expect(errors('host-catalogue', clean)).toEqual([]);
  });
});

describe('schemas reject what they must', () => {
  const find = (schema: string): Doc => clone(docs.find((d) => d.schema === schema)!.doc);
  it('an empty hardwareCharacteristics (HWCC: at least one field is mandatory)', () => {
    const hc = find('hardware-classification');
    hc.spec.hardwareCharacteristics = {};
    expect(errors('hardware-classification', hc)).toEqual([
      '/spec/hardwareCharacteristics must NOT have fewer than 1 properties {"limit":1}',
    ]);
  });
  it('a misspelt bound and an architecture outside the CRD enum', () => {
    const hc = find('hardware-classification');
    hc.spec.hardwareCharacteristics.ram = { minimumSizeGb: 64 };
    hc.spec.hardwareCharacteristics.cpu.architecture = 'aarch64';
    const e = errors('hardware-classification', hc);
    expect(
      e.some((x) =>
        x.startsWith('/spec/hardwareCharacteristics/ram must NOT have additional properties {"additionalProperty":"minimumSizeGb"}'),
      ),
    ).toBe(true);
    expect(e.some((x) => x.startsWith('/spec/hardwareCharacteristics/cpu/architecture must be equal to one of the allowed values'))).toBe(
      true,
    );
  });
  it('a NIC vendor that is a name, not a PCI id', () => {
    const hc = find('hardware-classification');
    hc.spec.hardwareCharacteristics.nic.nicSelector = { vendor: ['Intel'] };
    expect(errors('hardware-classification', hc)[0]).toMatch(
      /^\/spec\/hardwareCharacteristics\/nic\/nicSelector\/vendor\/0 must match pattern/,
    );
  });
  it('a host with a password, an unquoted (base-60) MAC or a missing boot MAC', () => {
    const hc = find('host-catalogue');
    hc.hosts.m3['r750-01'].bmcPassword = 'calvin';
    hc.hosts.m3['dl385-01'].macAddress = 3723374340;
    delete hc.hosts.m3['sys821ge-01'].macAddress;
    expect(errors('host-catalogue', hc)).toEqual([
      '/hosts/m3/r750-01/bmcPassword must NOT be valid {}',
      '/hosts/m3/dl385-01/macAddress must be string {"type":"string"}',
      `/hosts/m3/sys821ge-01 must have required property 'macAddress' {"missingProperty":"macAddress"}`,
    ]);
  });
  it('a NetworkCatalogue field that is not in the airshipctl CRD, and a bad netmask', () => {
    const n = find('network-catalogue');
    n.spec.ironic.dhcpRanges = '10.0.0.1,10.0.0.9';
    n.spec.commonHostNetworking.networks[0].netmask = '255.255.255.256';
    const e = errors('network-catalogue', n);
    expect(e.some((x) => x.startsWith('/spec/ironic must NOT have additional properties {"additionalProperty":"dhcpRanges"}'))).toBe(true);
    expect(e.some((x) => x.startsWith('/spec/commonHostNetworking/networks/0/netmask must match pattern'))).toBe(true);
  });
  it('a VersionsCatalogue chart without a version', () => {
    const v = find('versions-catalogue');
    delete v.spec.charts['ingress-nginx'].version;
    expect(errors('versions-catalogue', v)).toEqual([
      `/spec/charts/ingress-nginx must have required property 'version' {"missingProperty":"version"}`,
    ]);
  });
});

/** HardwareInventory snapshots of the three real captures (bmh-from-redfish's golden inputs). */
function inventory(caseName: string, profile: string, name: string): string {
  const inv = readDoc(join(repoRoot, 'functions/bmh-from-redfish/testdata', caseName, 'input.yaml'));
  inv.metadata = {
    name,
    labels: { 'baremetal-krm.dev/hardware-profile': profile },
    annotations: { 'config.kubernetes.io/local-config': 'true' },
  };
  return stringify(inv);
}
const allCatalogues = (withHosts = true): string[] =>
  docs.filter((d) => withHosts || d.schema !== 'host-catalogue').map((d) => stringify(d.doc));

async function validate(
  extra: string[],
  withHosts = true,
): Promise<{ exitCode: number; results: { severity: string; message: string; tags?: Record<string, string> }[] }> {
  const out = await runFunction(
    intentValidate,
    resourceList(
      [...allCatalogues(withHosts), ...extra],
      'apiVersion: baremetal-krm.dev/v1alpha1\nkind: IntentValidate\nmetadata:\n  name: v\nspec:\n  now: "2026-01-01T00:00:00Z"\n',
    ),
  );
  return { exitCode: out.exitCode, results: out.results as never };
}

describe('intent-validate on the catalogues', () => {
  it('passes every catalogue with no finding at all', async () => {
    const r = await validate([]);
    expect(r.results).toEqual([]);
    expect(r.exitCode).toBe(0);
  });

  // class -> the captures it must match (the others must fail), as the class files say
  const matrix: Record<string, string[]> = {
    'control-plane': ['dell-r750', 'hpe-dl385', 'supermicro-821ge'],
    'compute-general': ['dell-r750', 'hpe-dl385', 'supermicro-821ge'],
    'compute-large-memory': ['hpe-dl385', 'supermicro-821ge'],
    'storage-nvme': ['hpe-dl385', 'supermicro-821ge'],
    'edge-small': [],
  };
  for (const [cls, matching] of Object.entries(matrix)) {
    it(`hardware class ${cls} matches exactly ${matching.join(', ') || 'none of the three servers'}`, async () => {
      const cases = ['dell-r750', 'hpe-dl385', 'supermicro-821ge'];
      // without the host catalogue: it names the same NICs (a duplicate-MAC finding otherwise)
      const r = await validate(
        cases.map((c) => inventory(c, cls, c)),
        false,
      );
      const failing = [
        ...new Set(r.results.filter((x) => x.tags?.rule === 'hardware-profile').map((x) => cases.find((c) => x.message.includes(c)))),
      ].sort();
      expect(failing).toEqual(cases.filter((c) => !matching.includes(c)));
      expect(r.results.filter((x) => x.tags?.rule !== 'hardware-profile')).toEqual([]);
    });
  }

  it('says which bound a host misses (R750 is not large-memory: 512 GiB < 1024 GB)', async () => {
    const r = await validate([inventory('dell-r750', 'compute-large-memory', 'r750-01')]);
    expect(r.exitCode).toBe(1);
    const msgs = r.results.map((x) => x.message).join('\n');
    expect(msgs).toContain('r750-01');
    expect(msgs).toContain('ram: wanted >= 1024 GB (x1024 MiB), found 524288 MiB');
    expect(msgs).toContain('cpu count: wanted >= 128, found 72');
  });

  it('finds a plaintext password if someone adds one to the host catalogue', async () => {
    const hc = clone(docs.find((d) => d.schema === 'host-catalogue')!.doc);
    hc.hosts.m3['r750-01'].bmcPassword = 'calvin';
    const out = await runFunction(
      intentValidate,
      resourceList([stringify(hc)], 'apiVersion: baremetal-krm.dev/v1alpha1\nkind: IntentValidate\nmetadata:\n  name: v\n'),
    );
    const enc = (out.results as { message: string; tags?: Record<string, string> }[]).filter((x) => x.tags?.rule === 'encryption');
    expect(enc.length).toBe(1);
    expect(enc[0]?.message).not.toContain('calvin');
  });
});

// keep `parse` imported for readers adding cases from YAML text
void parse;
