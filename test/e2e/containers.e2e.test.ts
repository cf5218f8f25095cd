/**
 * Container functions, end to end: images built with podman (scripts/build-images.sh), run by
 * `kpt fn render` (image: in a Kptfile) and by `kubectl kustomize --enable-alpha-plugins`
 * (through the docker shim), on each function's golden cases. kpt with the image must write
 * what kpt with the exec bundle writes; kustomize must produce the golden case's expected
 * objects (what kustomize keeps of them) or fail with the expected error.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse, parseAllDocuments } from 'yaml';
import { beforeAll, describe, expect, it } from 'vitest';
import { bundleExists, clusterObjects, dist, listFiles, repoRoot, run, tempDir, writeKptfile } from './helpers.js';

const FUNCTIONS = ['bmh-from-redfish', 'site-from-catalogue', 'phase-plan-expand', 'intent-validate'].filter(bundleExists);
const image = (fn: string): string => `localhost/baremetal-krm/${fn}:dev`;
const shimPath = `${join(repoRoot, 'test/e2e/bin')}:${process.env.PATH}`;
/** How many golden cases per function to run through the containers (each run starts containers). */
const CASES_PER_FUNCTION = Number(process.env.E2E_CONTAINER_CASES ?? 3);

interface Case {
  fn: string;
  name: string;
  dir: string;
  expectedError: boolean;
}

function kustomizable(input: string): boolean {
  const ids = new Set<string>();
  for (const d of parseAllDocuments(input)) {
    const v = d.toJS() as Record<string, any> | null;
    if (!v) continue;
    if (!v.metadata?.name) return false;
    const id = `${String(v.apiVersion).split('/')[0]}|${v.kind}|${v.metadata.namespace ?? ''}|${v.metadata.name}`;
    if (ids.has(id)) return false;
    ids.add(id);
  }
  return true;
}

function goldenCases(fn: string): Case[] {
  const td = join(repoRoot, 'functions', fn, 'testdata');
  if (!existsSync(td)) return [];
  return (
    readdirSync(td)
      .sort()
      .map((name) => ({ fn, name, dir: join(td, name) }))
      .filter((c) => existsSync(join(c.dir, 'fn-config.yaml')) && !existsSync(join(c.dir, 'env.yaml')))
      .map((c) => {
        const results = existsSync(join(c.dir, 'results.yaml'))
          ? (parse(readFileSync(join(c.dir, 'results.yaml'), 'utf8')) as { severity: string }[])
          : [];
        return { ...c, expectedError: results.some((r) => r.severity === 'error') };
      })
      // kustomize refuses two resources with one identity; kpt refuses resources without a name
      .filter((c) => kustomizable(existsSync(join(c.dir, 'input.yaml')) ? readFileSync(join(c.dir, 'input.yaml'), 'utf8') : ''))
      .slice(0, CASES_PER_FUNCTION)
  );
}

const normalise = clusterObjects;

function splitDocs(text: string): string[] {
  return text.split(/^---\s*$/m).filter((d) => d.trim() !== '');
}

describe.skipIf(FUNCTIONS.length === 0)('container functions (podman)', () => {
  beforeAll(() => {
    execFileSync('bash', [join(repoRoot, 'scripts/build-images.sh'), ...FUNCTIONS], { stdio: 'inherit' });
  });

  for (const fn of FUNCTIONS) {
    const cases = goldenCases(fn);
    it(`${fn}: has golden cases to run in a container`, () => {
      expect(cases.length).toBeGreaterThan(0);
    });
    for (const c of cases) {
      it(`${fn}/${c.name}: kpt fn render with the image writes what the exec function writes`, () => {
        const dir = tempDir(`kpt-image-${fn}`);
        const outputs: Record<string, Record<string, string>> = {};
        for (const mode of ['exec', 'image'] as const) {
          const pkg = join(dir, mode);
          mkdirSync(pkg, { recursive: true });
          splitDocs(existsSync(join(c.dir, 'input.yaml')) ? readFileSync(join(c.dir, 'input.yaml'), 'utf8') : '').forEach((d, i) =>
            writeFileSync(join(pkg, `input-${String(i).padStart(3, '0')}.yaml`), d.replace(/^\n+/, '')),
          );
          const cfg = parse(readFileSync(join(c.dir, 'fn-config.yaml'), 'utf8')) as Record<string, any>;
          cfg.metadata = { ...(cfg.metadata ?? {}), name: cfg.metadata?.name ?? 'fn-config' };
          cfg.metadata.annotations = { ...(cfg.metadata.annotations ?? {}), 'config.kubernetes.io/local-config': 'true' };
          writeFileSync(join(pkg, 'fn-config.yaml'), JSON.stringify(cfg));
          const step = mode === 'exec' ? `  - exec: ${dist(fn)}\n` : `  - image: ${image(fn)}\n`;
          writeKptfile(pkg, 'case', step + '    configPath: fn-config.yaml\n');
          const r = run('kpt', ['fn', 'render', pkg, ...(mode === 'exec' ? ['--allow-exec'] : ['--image-pull-policy', 'never'])], {
            env: { KPT_FN_RUNTIME: 'podman' },
          });
          expect(r.status === 0, `${mode}: ${r.stderr}`).toBe(!c.expectedError);
          outputs[mode] = Object.fromEntries(
            listFiles(pkg)
              .filter((f) => f !== 'Kptfile')
              .map((f) => [f, readFileSync(join(pkg, f), 'utf8')]),
          );
        }
        expect(outputs.image).toEqual(outputs.exec);
      });

      it(`${fn}/${c.name}: kubectl kustomize with the container function gives the golden output`, () => {
        const dir = tempDir(`kustomize-${fn}`);
        const input = existsSync(join(c.dir, 'input.yaml')) ? readFileSync(join(c.dir, 'input.yaml'), 'utf8') : '';
        const docs = splitDocs(input);
        docs.forEach((d, i) => writeFileSync(join(dir, `r${i}.yaml`), d.replace(/^\n+/, '')));
        const cfg = parse(readFileSync(join(c.dir, 'fn-config.yaml'), 'utf8')) as Record<string, any>;
        cfg.metadata = { ...(cfg.metadata ?? {}), name: cfg.metadata?.name ?? 'fn-config' };
        cfg.metadata.annotations = {
          ...(cfg.metadata.annotations ?? {}),
          'config.kubernetes.io/function': `container:\n  image: ${image(fn)}\n`,
        };
        writeFileSync(join(dir, 'fn.yaml'), JSON.stringify(cfg));
        writeFileSync(
          join(dir, 'kustomization.yaml'),
          `apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\n` +
            (docs.length ? `resources:\n${docs.map((_, i) => `- r${i}.yaml\n`).join('')}` : '') +
            `transformers:\n- fn.yaml\n`,
        );
        const r = run('kubectl', ['kustomize', '--enable-alpha-plugins', dir], { env: { PATH: shimPath } });
        if (c.expectedError) {
          expect(r.status).not.toBe(0);
          expect(r.stderr).toMatch(/error/i);
          return;
        }
        expect(r.status, r.stderr).toBe(0);
        expect(normalise(r.stdout)).toEqual(normalise(readFileSync(join(c.dir, 'expected.yaml'), 'utf8')));
      });
    }
  }
});
