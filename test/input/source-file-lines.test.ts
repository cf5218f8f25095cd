/**
 * A function run on a folder (--source) places its findings on the lines of the files: any
 * document of a file, below any comments and blank lines, not only the first document of a file
 * starting on line 1 (what can be assumed of a ResourceList from kpt).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { definition as intentValidate } from '../../functions/intent-validate/function.js';
import { readPackageFiles, runFunction, sourceResourceList } from '../../src/krm/index.js';

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

const CONFIG = 'apiVersion: baremetal-krm.dev/v1alpha1\nkind: IntentValidate\nmetadata:\n  name: v\n';
const LEADS = ['', '# hosts\n', '\n\n', '# a\n\n# b\n', '---\n', '--- # doc\n# c\n'];

/** A host whose BMC Secret is missing (one finding, on its credentialsName line); metadata in flow style when `flow`. */
function host(name: string, flow: boolean): string {
  const meta = flow ? `metadata: {name: ${name}, namespace: ns}\n` : `metadata:\n  name: ${name}\n  namespace: ns\n`;
  return `apiVersion: metal3.io/v1alpha1\nkind: BareMetalHost\n${meta}spec:\n  online: true\n  bmc:\n    address: redfish://10.0.0.1/redfish/v1/Systems/1\n    credentialsName: ${name}-bmc\n`;
}

describe('findings of a run on a folder are on the lines of its files', () => {
  it('every document of every file (generated leads, separators, documents per file); none for a document the annotations rewrote', async () => {
    let seed = 17;
    const pick = (n: number): number => {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      return seed % n;
    };
    let placed = 0;
    for (let round = 0; round < 12; round++) {
      const dir = mkdtempSync(join(tmpdir(), 'bmk-lines-'));
      dirs.push(dir);
      const files = new Map<string, string>();
      const flowHosts = new Set<string>();
      for (let f = 0; f < 3; f++) {
        let text = '';
        for (let d = 0, docs = 1 + pick(3); d < docs; d++) {
          const name = `h${round}-${f}-${d}`;
          const flow = pick(5) === 0;
          if (flow) flowHosts.add(name);
          const lead = LEADS[pick(LEADS.length)]!;
          text += (d > 0 && !lead.startsWith('---') ? '---\n' : '') + lead + host(name, flow);
        }
        files.set(`f${f}.yaml`, text);
        writeFileSync(join(dir, `f${f}.yaml`), text);
      }
      const documentLines = new Map<string, number>();
      const list = sourceResourceList(readPackageFiles(dir), CONFIG, documentLines);
      const r = await runFunction(intentValidate, list, {}, documentLines);
      const missing = r.results.filter((x) => x.tags?.rule === 'reference');
      expect(missing.length).toBe([...files.values()].join('').split('credentialsName').length - 1);
      for (const x of missing) {
        const name = x.resourceRef!.name!;
        const line = x.tags?.line === undefined ? undefined : Number(x.tags.line);
        if (flowHosts.has(name)) {
          expect(line, name).toBeUndefined(); // written anew by yaml to annotate it: its lines are not the file's
          continue;
        }
        const fileLines = files.get(x.file!.path)!.split('\n');
        expect(fileLines[line! - 1], `${x.file!.path}:${line} for ${name}`).toBe(`    credentialsName: ${name}-bmc`);
        placed++;
      }
    }
    expect(placed).toBeGreaterThan(40);
  });

  it('a document with file annotations of its own (their lines kept, values replaced) gets no line, never a wrong one', async () => {
    for (const own of [
      '    config.kubernetes.io/path: p.yaml\n',
      '    config.kubernetes.io/path: x\n    config.kubernetes.io/index: "3"\n    note: n\n',
    ]) {
      const text = `apiVersion: metal3.io/v1alpha1\nkind: BareMetalHost\nmetadata:\n  name: h1\n  namespace: ns\n  annotations:\n${own}${host('h1', false).split('metadata:\n  name: h1\n  namespace: ns\n')[1]}`;
      const dir = mkdtempSync(join(tmpdir(), 'bmk-lines-'));
      dirs.push(dir);
      writeFileSync(join(dir, 'p.yaml'), text);
      const documentLines = new Map<string, number>();
      const r = await runFunction(intentValidate, sourceResourceList(readPackageFiles(dir), CONFIG, documentLines), {}, documentLines);
      const finding = r.results.find((x) => x.tags?.rule === 'reference');
      expect(finding, own).toBeDefined();
      expect(finding!.tags?.line, own).toBeUndefined();
    }
  });
});
