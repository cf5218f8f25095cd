/**
 * Every CEL expression phase-plan-expand writes (healthCheckExprs, dependsOn readyExpr) parsed and
 * evaluated with a real CEL implementation (@bufbuild/cel), the way Flux's kustomize-controller
 * evaluates them: the object's top-level fields are the variables (fluxcd/pkg runtime/cel).
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse as celParse, run as celRun } from '@bufbuild/cel';
import fc from 'fast-check';
import { parseAllDocuments } from 'yaml';
import { describe, expect, it } from 'vitest';
import { conditionToCel, fluxFeatures, gatesDoneExpr, waitPlan } from './flux.js';

const testdata = join(import.meta.dirname, 'testdata');
const docsOf = (s: string) =>
  parseAllDocuments(s)
    .map((d) => d.toJS() as Record<string, any>)
    .filter(Boolean);

/** JSON as the Go side sees it: integers are int64 (bigint here), maps and lists as they are. */
function goValue(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(goValue);
  if (v !== null && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, goValue(x)]));
  return typeof v === 'number' && Number.isInteger(v) ? BigInt(v) : v;
}

/**
 * Flux's verdict for an object: `true` only when the expression evaluates to true. A missing
 * top-level field is an evaluation error in cel-go (Flux keeps waiting), so it counts as not ready.
 */
function fluxReady(expr: string, obj: Record<string, unknown>): boolean {
  try {
    return celRun(expr, goValue(obj) as Record<string, never>) === true;
  } catch {
    return false;
  }
}

/** A value at a dotted path below `root`: `{status: {provisioning: {state: v}}}`. */
function nest(path: string[], leaf: unknown): Record<string, unknown> {
  return path.reduceRight<unknown>((acc, seg) => ({ [seg]: acc }), leaf) as Record<string, unknown>;
}

interface Samples {
  ready: Record<string, unknown>[];
  notReady: Record<string, unknown>[];
}

/** Sample objects for a supported JSONPath: ones airshipctl would call ready, not ready, and with the field absent. */
function samplesFor(jsonPath: string, value: string | undefined): Samples {
  const body = jsonPath.replace(/^\{\s*|\s*\}$/g, '');
  const m = /^\.([\w.]+?)(?:\[\?\(@\.(\w+)\s*==\s*'([^']*)'\)\](?:\.([\w.]+))?)?$/.exec(body);
  if (!m) throw new Error(`not a sample-able path: ${jsonPath}`);
  const before = m[1]!.split('.');
  const typed = (v: string): unknown[] => (v === 'true' || v === 'false' ? [v === 'true', v] : /^-?\d+$/.test(v) ? [Number(v), v] : [v]);
  const other = value === undefined ? undefined : `${value}-not`;
  const leafReady = value === undefined ? ['anything'] : typed(value);
  if (!m[2]) {
    return {
      ready: leafReady.map((v) => nest(before, v)),
      notReady: [{}, nest(before.slice(0, 1), {}), ...(other === undefined ? [] : [nest(before, other)])],
    };
  }
  const after = m[4] ? m[4].split('.') : [];
  const item = (v: unknown) => ({ [m[2]!]: m[3]!, ...(after.length ? nest(after, v) : {}) });
  return {
    ready: leafReady.map((v) => nest(before, [{ [m[2]!]: 'other' }, item(v)])),
    notReady: [
      {},
      nest(before, []),
      nest(before, [{ [m[2]!]: `${m[3]}-not`, ...(after.length ? nest(after, leafReady[0]) : {}) }]),
      ...(after.length ? [nest(before, [{ [m[2]!]: m[3]! }])] : []),
      ...(other === undefined || !after.length ? [] : [nest(before, [item(other)])]),
    ],
  };
}

/** The documents of one file of every golden case that has it: [case, document]. */
function goldenDocs(file: string): [string, Record<string, any>][] {
  return readdirSync(testdata)
    .filter((c) => existsSync(join(testdata, c, file)))
    .flatMap((c) => docsOf(readFileSync(join(testdata, c, file), 'utf8')).map((d): [string, Record<string, any>] => [c, d]));
}

/** Every KubernetesApply wait condition of the golden inputs. */
function goldenConditions(): { jsonPath: string; value: string | undefined; where: string }[] {
  const out: { jsonPath: string; value: string | undefined; where: string }[] = [];
  for (const [c, d] of goldenDocs('input.yaml'))
    if (d.kind === 'KubernetesApply')
      for (const cond of d.config?.waitOptions?.conditions ?? [])
        out.push({
          jsonPath: cond.jsonPath,
          value: cond.value === undefined ? undefined : String(cond.value),
          where: `${c} ${d.metadata.name}`,
        });
  return out;
}

describe('generated CEL, evaluated with @bufbuild/cel', () => {
  it('conditionToCel writes the KubernetesApply JSONPath subset in these forms', () => {
    expect(conditionToCel('{.status.phase}', 'Ready')).toBe("has(status.phase) && status.phase == 'Ready'");
    expect(conditionToCel("{.status.conditions[?(@.type=='Ready')].status}", 'True')).toBe(
      "has(status.conditions) && status.conditions.exists(e, e.type == 'Ready' && has(e.status) && e.status == 'True')",
    );
    expect(conditionToCel('{.status.x}', "it's")).toBe("has(status.x) && status.x == 'it\\'s'");
    // airshipctl compares printed text: a boolean or number value matches the typed field too
    expect(conditionToCel('{.status.controlPlaneReady}', 'true')).toBe(
      "has(status.controlPlaneReady) && string(status.controlPlaneReady) == 'true'",
    );
    expect(conditionToCel('{.status.readyReplicas}', '3')).toBe("has(status.readyReplicas) && string(status.readyReplicas) == '3'");
    expect(conditionToCel('{.status.ratio}', '-1.5e3')).toBe("has(status.ratio) && string(status.ratio) == '-1.5e3'");
    expect(conditionToCel('{.status.v}', '03')).toBe("has(status.v) && status.v == '03'");
    // CEL reserved words are never bare identifiers: index access and a map key test instead
    expect(conditionToCel('{.status.in.null}', 'x')).toBe("'in' in status && 'null' in status['in'] && status['in']['null'] == 'x'");
    expect(conditionToCel("{.status.conditions[?(@.true=='a')].false}", 'b')).toBe(
      "has(status.conditions) && status.conditions.exists(e, e['true'] == 'a' && 'false' in e && e['false'] == 'b')",
    );
    expect(conditionToCel('{.in.x}', 'a')).toBeUndefined(); // a reserved word cannot be the root variable
    expect(conditionToCel('{.status}', 'Ready')).toBeUndefined(); // the whole object never equals a value
    expect(conditionToCel('{.status.items[0].name}', 'a')).toBeUndefined();
    expect(conditionToCel('{range .items[*]}{.x}{end}', undefined)).toBeUndefined();
  });

  it('every healthCheckExprs and readyExpr in the golden outputs parses', () => {
    let n = 0;
    for (const [c, d] of goldenDocs('expected.yaml').filter(([, x]) => x.kind === 'Kustomization' && x.spec)) {
      for (const h of d.spec.healthCheckExprs ?? []) {
        expect(() => celParse(h.current), `${c} ${d.metadata.name}: ${h.current}`).not.toThrow();
        n++;
      }
      for (const dep of d.spec.dependsOn ?? []) if (dep.readyExpr) expect(() => celParse(dep.readyExpr)).not.toThrow();
    }
    expect(n).toBeGreaterThan(10);
  });

  it('every wait condition of the golden inputs is true on a ready object and false on not-ready and field-absent ones', () => {
    const conds = goldenConditions();
    expect(conds.length).toBeGreaterThan(5);
    for (const { jsonPath, value, where } of conds) {
      const expr = conditionToCel(jsonPath, value);
      if (expr === undefined) continue; // reported as flux/unsupported-condition
      const s = samplesFor(jsonPath, value);
      for (const o of s.ready) expect(fluxReady(expr, o), `${where} ${expr} on ${JSON.stringify(o)}`).toBe(true);
      for (const o of s.notReady) expect(fluxReady(expr, o), `${where} ${expr} on ${JSON.stringify(o)}`).toBe(false);
    }
  });

  it('CEL reserved words as field names parse and select the right field', () => {
    for (const [jp, value, obj] of [
      ['{.status.in}', 'yes', { status: { in: 'yes' } }],
      ['{.status.null.true}', undefined, { status: { null: { true: 1 } } }],
      ['{.status.namespace}', 'a', { status: { namespace: 'a' } }],
      ["{.status.conditions[?(@.in=='a')].false}", 'b', { status: { conditions: [{ in: 'a', false: 'b' }] } }],
    ] as const) {
      const expr = conditionToCel(jp, value)!;
      expect(() => celParse(expr), expr).not.toThrow();
      expect(fluxReady(expr, obj as Record<string, unknown>), expr).toBe(true);
    }
  });

  it('property: any field names and values give an expression a real CEL parser accepts, true exactly when the value matches', () => {
    const reserved = ['in', 'null', 'true', 'false', 'namespace', 'as', 'package', 'var'];
    const seg = fc.oneof(fc.stringMatching(/^[A-Za-z_][A-Za-z0-9_]{0,8}$/), fc.constantFrom(...reserved));
    const value = fc.oneof(
      fc.string({ unit: 'grapheme', maxLength: 12 }),
      fc.string({ unit: fc.constantFrom('\n', '\r', '\t', '\0', '\\', "'", '"', '\u007f', 'a', ' ', '\u2028'), maxLength: 8 }),
      fc.constantFrom('true', 'false', '3', '-1', '0', '1.5'),
    );
    fc.assert(
      fc.property(fc.array(seg, { minLength: 1, maxLength: 3 }), value, (path, v) => {
        const expr = conditionToCel(`{.status.${path.join('.')}}`, v);
        if (expr === undefined) return;
        celParse(expr);
        const leaf = v === 'true' || v === 'false' ? v === 'true' : /^-?\d+$/.test(v) ? Number(v) : v;
        expect(fluxReady(expr, { status: nest(path, leaf) })).toBe(true);
        expect(fluxReady(expr, { status: nest(path, `${v}x`) })).toBe(false);
        expect(fluxReady(expr, { status: {} })).toBe(false);
        expect(fluxReady(expr, {})).toBe(false);
      }),
      { numRuns: 400 },
    );
  });
});

describe('Flux versions', () => {
  const executor = {
    config: {
      waitOptions: {
        timeout: 60,
        conditions: [
          { apiVersion: 'metal3.io/v1alpha1', kind: 'BareMetalHost', jsonPath: '{.status.provisioning.state}', value: 'available' },
          { apiVersion: 'metal3.io/v1beta1', kind: 'BareMetalHost', jsonPath: '{.status.operationalStatus}', value: 'OK' },
          { apiVersion: 'v1', kind: 'ConfigMap', jsonPath: '{.data.ready}', value: 'yes' },
        ],
      },
    },
  };
  it('healthCheckExprs from Flux 2.5 on, one per group and kind (Flux rejects two for one GroupKind)', () => {
    const w = waitPlan(executor, fluxFeatures('2.5', []).features);
    expect(w.wait).toBe(true);
    expect(w.healthCheckExprs.map((h) => `${h.apiVersion} ${h.kind}`)).toEqual(['metal3.io/v1alpha1 BareMetalHost', 'v1 ConfigMap']);
    expect(w.healthCheckExprs[0]!.current).toBe(
      "(has(status.provisioning) && has(status.provisioning.state) && status.provisioning.state == 'available') && (has(status.operationalStatus) && status.operationalStatus == 'OK')",
    );
    expect(w.mayBeAbsent).toEqual([[2, '{.data.ready}', 'data']]);
    expect(w.needsNewerFlux).toEqual([]);
  });
  it('before Flux 2.5: no healthCheckExprs, wait: true (kstatus) and every condition reported', () => {
    const w = waitPlan(executor, fluxFeatures('v2.4.0', []).features);
    expect(w).toMatchObject({ wait: true, timeout: '60s', healthCheckExprs: [] });
    expect(w.needsNewerFlux.map(([i]) => i)).toEqual([0, 1, 2]);
  });
  it('readyExpr only from 2.7 and only with AdditiveCELDependencyCheck; settings that do not fit are config problems', () => {
    expect(fluxFeatures(undefined, []).features).toEqual({ version: '2.8', healthCheckExprs: true, readyExpr: false });
    expect(fluxFeatures('2.7', ['AdditiveCELDependencyCheck']).features.readyExpr).toBe(true);
    const old = fluxFeatures('2.6', ['AdditiveCELDependencyCheck']);
    expect(old.features.readyExpr).toBe(false);
    expect(old.problems[0]).toContain('Flux 2.6 does not have');
    expect(fluxFeatures('1.25', []).problems[0]).toContain('needs Flux 2.0 or later');
  });
  it('the gate acknowledgement readyExpr: true only once the Kustomization carries exactly the gate ids', () => {
    const expr = gatesDoneExpr(['clusterctl-init-ephemeral', 'kubectl-wait-deploy-ephemeral']);
    const self = (ann: Record<string, string> | undefined) => ({ metadata: ann ? { name: 'k', annotations: ann } : { name: 'k' } });
    const dep = { metadata: { name: 'd' }, status: { conditions: [{ type: 'Ready', status: 'True' }] } };
    const ok = (s: Record<string, unknown>) => fluxReady(expr, { self: s, dep });
    expect(ok(self({ 'baremetal-krm.dev/gates-done': 'clusterctl-init-ephemeral,kubectl-wait-deploy-ephemeral' }))).toBe(true);
    expect(ok(self({ 'baremetal-krm.dev/gates-done': 'clusterctl-init-ephemeral' }))).toBe(false);
    expect(ok(self({ other: 'x' }))).toBe(false);
    expect(ok(self(undefined))).toBe(false);
  });
});
