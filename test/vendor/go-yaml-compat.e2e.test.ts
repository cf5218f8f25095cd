/**
 * The vendor-style CNI manifest (cni-manifest.ts) read by the real `kubectl kustomize` and by
 * the runtime: every object the same data. kustomize writes its output in standard YAML, read
 * back here with YAML 1.2 (the manifest holds none of the words YAML 1.1 reads otherwise).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { describe, expect, it } from 'vitest';
import { readInput } from '../../src/krm/index.js';
import { run, tempDir } from '../e2e/helpers.js';
import { cniManifest } from './cni-manifest.js';

describe('a vendor CNI manifest, next to kubectl kustomize', () => {
  it('reads every object as kustomize does', () => {
    const dir = tempDir('cni');
    writeFileSync(join(dir, 'calico.yaml'), cniManifest());
    writeFileSync(join(dir, 'kustomization.yaml'), 'resources: [calico.yaml]\n');
    const r = run(process.env.KUBECTL || 'kubectl', ['kustomize', dir]);
    expect(r.status, r.stderr).toBe(0);
    const key = (o: Record<string, unknown>): string => `${String(o.kind)}/${String((o.metadata as { name?: string }).name)}`;
    const theirs = new Map(
      parseAllDocuments(r.stdout)
        .map((d) => d.toJS() as Record<string, unknown>)
        .map((o) => [key(o), o]),
    );
    const ours = readInput(cniManifest()).items.map((o) => o.data);
    expect(ours.length).toBe(theirs.size);
    for (const o of ours) expect(o, key(o)).toEqual(theirs.get(key(o)));
  });
});
