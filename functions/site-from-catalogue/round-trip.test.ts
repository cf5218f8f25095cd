/** distil and generate undo each other: generate(distil(site)) is the site, distil(generate(catalogue)) the catalogue. */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { splitStream } from '../../src/krm/index.js';
import {
  caseFile,
  type Doc,
  docs,
  fixture,
  generated,
  pathOf,
  run,
  testdata,
  testSiteCatalogues,
  withoutLocation,
} from './test-support.js';

describe('round trip', () => {
  it('distil(generate(c)) equals c without credentials (test-site)', async () => {
    const gen = await run(testSiteCatalogues);
    expect(gen.exitCode).toBe(0);
    const rendered = splitStream(gen.items).filter((d) => !/kind: VariableCatalogue/.test(d));
    const dist = await run(rendered, 'mode: distil');
    expect(dist.exitCode).toBe(0);
    const distilled = dist.docs.find((d) => (d.metadata as Doc).name === 'host-catalogue')!;
    const original = docs(fixture('site/test-site/target/catalogues/shareable/hosts.yaml'))[0]!;
    const m3 = (original.hosts as Doc).m3 as Record<string, Doc>;
    const normalised = Object.fromEntries(
      Object.entries(m3).map(([n, h]) => {
        const { bmcUsername: _u, bmcPassword: _p, ...rest } = h;
        return [n, rest];
      }),
    );
    expect((distilled.hosts as Doc).m3).toEqual(normalised);
    // no password ever reaches the distilled output
    expect(dist.items).not.toContain('r00tme');
  });

  it('generate(distil(s)) equals s (test-site, roles and an allocated address)', async () => {
    const cat = testSiteCatalogues
      .slice(0, 3)
      .concat(fixture('site/test-site/target/catalogues/shareable/hosts.yaml').replace('        pxe-ipv4: 10.23.24.106\n', ''));
    const spec = 'roles:\n  controlPlane: {count: 2}\n  workers: {}\nipam:\n  pxe-ipv4: {cidr: 10.23.24.0/24}';
    const s = await run(cat, spec);
    expect(s.exitCode).toBe(0);
    const sDocs = generated(s.docs);
    expect(sDocs.length).toBe(12);
    const rendered = splitStream(s.items).filter((d) => !/kind: VariableCatalogue/.test(d));
    const d = await run(rendered, 'mode: distil');
    expect(d.exitCode).toBe(0);
    const catalogue = splitStream(d.items).filter((x) => /kind: VariableCatalogue/.test(x));
    const again = await run([...testSiteCatalogues.slice(0, 3), ...catalogue], spec);
    expect(again.exitCode).toBe(0);
    expect(generated(again.docs).map(withoutLocation)).toEqual(sDocs.map(withoutLocation));
  });
});

describe('distil takes back whatever generate writes, however many folders a host is in', () => {
  /** A golden output as a rendered site: without the catalogues it was generated from. */
  const rendered = (items: string) =>
    splitStream(items).filter(
      (d) => !(/^kind: VariableCatalogue/m.test(d) && /^hosts:\n {2}m3:/m.test(d)) && !/^kind: SiteFromCatalogue/m.test(d),
    );
  const cases = readdirSync(testdata).filter((c) => statSync(join(testdata, c)).isDirectory());
  function readOut(c: string): string {
    return existsSync(join(testdata, c, 'expected.yaml')) ? readFileSync(join(testdata, c, 'expected.yaml'), 'utf8') : '';
  }

  for (const c of cases.filter((x) => !x.startsWith('error-') && !x.startsWith('distil-') && /kind: BareMetalHost/.test(readOut(x)))) {
    it(c, async () => {
      const out = readOut(c);
      const bmhs = docs(out).filter((d) => d.kind === 'BareMetalHost' && pathOf(d) !== undefined);
      const names = [...new Set(bmhs.map((d) => (d.metadata as { name: string }).name))];
      const r = await run(rendered(out), 'mode: distil');
      expect(r.results.filter((x) => x.severity === 'error')).toEqual([]);
      const distilled = r.docs.find(
        (d) => (d.metadata as { name: string }).name === 'host-catalogue' && pathOf(d) === 'hosts/host-catalogue.yaml',
      );
      expect(Object.keys(((distilled!.hosts as Doc).m3 as Doc) ?? {}).sort()).toEqual(names.sort());
      const copies = bmhs.length > names.length;
      expect(r.results.some((x) => x.tags?.rule === 'distil/merged-copies')).toBe(copies);
    });
  }

  it("generate(distil(s)) is s for the bonded, VLAN'd six-host site in four folders", async () => {
    const out = caseFile('bonded-vlan-site-phases', 'expected.yaml');
    const lists = splitStream(out).filter((d) => /name: host-generation-catalogue/.test(d));
    const d = await run(rendered(out), 'mode: distil');
    expect(d.exitCode).toBe(0);
    const catalogue = splitStream(d.items).filter((x) => /path: hosts\/host-catalogue\.yaml/.test(x));
    const networking = splitStream(out).filter((x) => /^kind: (NetworkCatalogue|VariableCatalogue)/m.test(x) && !/hosts:\n {2}m3:/.test(x));
    const again = await run([...networking, ...catalogue, ...lists]);
    expect(again.exitCode).toBe(0);
    const hostFiles = (ds: Doc[]) => generated(ds).filter((x) => /\/hosts\//.test(pathOf(x) ?? ''));
    const want = hostFiles(docs(out));
    expect(want.length).toBe(26);
    expect(hostFiles(again.docs).map(withoutGeneratedBy)).toEqual(want.map(withoutGeneratedBy));
  });
});

function withoutGeneratedBy(d: Doc): Doc {
  const md = { ...(d.metadata as Doc) };
  const { 'baremetal-krm.dev/generated-by': _g, ...ann } = (md.annotations as Record<string, string>) ?? {};
  return { ...d, metadata: { ...md, annotations: ann } };
}
