/**
 * Item 6 of issue 13: the functionConfig is not echoed in the output ResourceList (YAML or
 * JSON, in process and from the bundle). The KRM function spec does not ask for it and kpt and
 * kustomize drop it; a runner that kept it would print whatever credential-bearing field it has.
 * The kpt run is in harness.e2e.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { readInput, runFunction } from '../../src/krm/index.js';
import { definition } from '../../functions/intent-validate/function.js';
import { resourceList, runBundle } from '../golden.js';

const TOKEN = 'fc-Token-4711-xyz';
const CONFIG = `apiVersion: baremetal-krm.dev/v1alpha1
kind: IntentValidate
metadata:
  name: validate
  annotations:
    example.com/api-token: ${TOKEN}
spec:
  now: "2026-01-01T00:00:00Z"
`;
const ITEM = 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\ndata:\n  k: v\n';

describe('the functionConfig is not echoed', () => {
  it('YAML ResourceList: items and results only, in process and from the bundle', async () => {
    const input = resourceList([ITEM], CONFIG);
    const r = await runFunction(definition, input);
    expect(r.output).not.toContain('functionConfig');
    expect(r.output + r.stderr).not.toContain(TOKEN);
    expect(readInput(r.output).items.map((i) => i.name)).toEqual(['a']);
    const b = runBundle('intent-validate', input);
    expect(b.stdout).toBe(r.output);
  });

  it('JSON ResourceList', async () => {
    const input = JSON.stringify({
      apiVersion: 'config.kubernetes.io/v1',
      kind: 'ResourceList',
      items: [{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a' } }],
      functionConfig: {
        apiVersion: 'baremetal-krm.dev/v1alpha1',
        kind: 'IntentValidate',
        metadata: { name: 'v', annotations: { t: TOKEN } },
      },
    });
    const r = await runFunction(definition, input);
    const out = JSON.parse(r.output) as Record<string, unknown>;
    expect(Object.keys(out)).not.toContain('functionConfig');
    expect(r.output).not.toContain(TOKEN);
  });
});
