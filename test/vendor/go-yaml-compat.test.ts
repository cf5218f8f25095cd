/**
 * What kubectl and kustomize (go-yaml) accept, the runtime accepts: a large upstream-style CNI
 * manifest (cni-manifest.ts) that strict YAML rejects in 19 of its 22 documents is read in
 * full, with an `info` per document saying what non-standard construct was accepted; its CRDs
 * are then used (a custom resource that breaks one is caught), by the function and the CLI.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { describe, expect, it } from 'vitest';
import { definition as intentValidate } from '../../functions/intent-validate/function.js';
import { runValidate } from '../../src/cli/validate.js';
import { PARSE_OPTIONS, readInput, runFunction } from '../../src/krm/index.js';
import { CRD_KINDS, cniManifest, expected } from './cni-manifest.js';

const manifest = cniManifest();
const NOTE =
  /\(lines? [\d, .]+\): a flow collection or quoted string continues at less indentation than YAML allows; read as kubectl and kustomize \(go-yaml\) read it \(non-standard but accepted\)$/;

describe('a vendor CNI manifest that strict YAML rejects', () => {
  it('is rejected by the strict parser (the problem)', () => {
    const docs = parseAllDocuments(manifest, PARSE_OPTIONS);
    expect(docs.length).toBe(CRD_KINDS.length + 4);
    expect(docs.filter((d) => d.errors.length > 0).length).toBe(CRD_KINDS.length + 1);
  });

  it('is read in full, as go-yaml reads it, with a note on each non-standard document', () => {
    const items = readInput(manifest).items;
    expect(items.map((o) => o.kind)).toEqual([
      ...CRD_KINDS.map(() => 'CustomResourceDefinition'),
      'ConfigMap',
      'ClusterRole',
      'DaemonSet',
      'IPPool',
    ]);
    const ds = items.find((o) => o.kind === 'DaemonSet')!;
    const pod = ds.get('spec.template.spec') as { containers: Record<string, unknown>[]; tolerations: unknown };
    const c = pod.containers[0]!;
    expect([c.image, c.imagePullPolicy, c.args, (c.env as { value: string }[])[1]!.value, pod.tolerations]).toEqual([
      expected.image,
      expected.imagePullPolicy,
      expected.args,
      expected.healthHost,
      expected.tolerations,
    ]);
    expect(items.find((o) => o.kind === 'ConfigMap')!.get('data.Makefile')).toBe(expected.makefile);
    const crd = items[0]!;
    expect(crd.get(['spec', 'versions', 0, 'name'])).toBe('v1');
    expect(
      crd.get(
        'spec.versions.0.schema.openAPIV3Schema.properties.spec.properties.ipipMode.enum'
          .split('.')
          .map((s) => (/^\d+$/.test(s) ? Number(s) : s)),
      ),
    ).toEqual(['Never', 'Always', 'CrossSubnet']);
    expect(items.find((o) => o.kind === 'ClusterRole')!.get('rules')).toEqual([
      { apiGroups: [''], resources: ['pods', 'nodes', 'namespaces'], verbs: ['get'] },
    ]);
    for (const o of items) void o.data; // notes are made while reading
    const noted = items.filter((o) => o.notes.length > 0);
    expect(noted.map((o) => o.kind)).toEqual([...CRD_KINDS.map(() => 'CustomResourceDefinition'), 'DaemonSet']);
    for (const o of noted) expect(o.notes[0]).toMatch(NOTE);
  });

  it('intent-validate (a plain stream): infos for the non-standard documents, the CRDs used, no input error', async () => {
    const r = await runFunction(intentValidate as never, manifest);
    expect(r.results.filter((x) => x.tags?.rule === 'input' && x.severity !== 'info')).toEqual([]);
    const infos = r.results.filter((x) => x.tags?.rule === 'input' && x.severity === 'info');
    expect(infos.length).toBe(CRD_KINDS.length + 1);
    expect(infos.find((x) => x.resourceRef?.kind === 'DaemonSet')!.message).toMatch(
      /^document 21 \(lines \d+, .*non-standard but accepted\)$/,
    );
    // the manifest's own IPPool CRD catches the custom resource
    const pool = r.results.filter((x) => x.resourceRef?.kind === 'IPPool' && x.severity === 'error');
    expect(pool.map((x) => x.field?.path)).toEqual(['spec.blockSize']);
    expect(r.output).toBe(manifest); // a stream comes back as it came
  });

  it('baremetal-krm validate: the same findings, with file and line', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'cni-')), 'calico.yaml');
    writeFileSync(file, manifest);
    let err = '';
    const code = await runValidate([file], { out: () => undefined, err: (s) => (err += s) });
    expect(code).toBe(1);
    expect(err).not.toMatch(/not valid YAML/);
    expect(err.match(/non-standard but accepted/g)?.length).toBe(CRD_KINDS.length + 1);
    expect(err).toMatch(new RegExp(`${file}:\\d+: error: IPPool/default-ipv4-ippool spec.blockSize: .*\\[schema\\]`));
  });
});
