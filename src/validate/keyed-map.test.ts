import { describe, expect, it } from 'vitest';
import { intern, readInput } from '../krm/index.js';
import { KeyedMap, RuleContext } from './context.js';

describe('KeyedMap (the analysis index keyed by kind, namespace and name)', () => {
  it('finds what was set under the same parts, and nothing under parts that would join to the same text', () => {
    const m = new KeyedMap<number>();
    m.set(['Secret', 'a|b', 'c'], 1);
    m.set(['Secret', 'a', 'b|c'], 2);
    m.set(['Secret', '', 'c'], 3);
    expect(m.get(['Secret', 'a|b', 'c'])).toBe(1);
    expect(m.get(['Secret', 'a', 'b|c'])).toBe(2);
    expect(m.get(['Secret', '', 'c'])).toBe(3);
    expect(m.has(['Secret', 'x', 'c'])).toBe(false);
    expect(m.has(['ConfigMap', '', 'c'])).toBe(false);
    expect(m.size).toBe(3);
    m.set(['Secret', '', 'c'], 4);
    expect(m.size).toBe(3);
    expect(m.get(['Secret', '', 'c'])).toBe(4);
  });
});

describe('intern', () => {
  it('returns an equal string, the same one every time for a word already held', () => {
    const a = intern(['Bare', 'MetalHost'].join(''));
    expect(a).toBe('BareMetalHost');
    expect(intern('BareMetalHost')).toBe(a);
    const long = 'x'.repeat(100);
    expect(intern(long)).toBe(long);
  });
});

describe('RuleContext index by kind, namespace and name', () => {
  const head = (group: string, name: string) => ({
    apiVersion: group ? `${group}/v1` : 'v1',
    kind: 'Kustomization',
    group,
    name,
    namespace: 'flux-system',
    labels: {},
    annotations: {},
  });
  it('answers for each API group of objects that share kind, namespace and name', () => {
    const ctx = new RuleContext([], {});
    const [a, b, c] = readInput('kind: A\n---\nkind: B\n---\nkind: C\n').items;
    ctx.index(a!, head('kustomize.toolkit.fluxcd.io', 'apps'));
    ctx.index(b!, head('kustomize.config.k8s.io', 'apps'));
    ctx.index(c!, head('', 'infra'));
    expect(ctx.existsInGroup('Kustomization', 'kustomize.toolkit.fluxcd.io', 'flux-system', 'apps')).toBe(true);
    expect(ctx.existsInGroup('Kustomization', 'kustomize.config.k8s.io', 'flux-system', 'apps')).toBe(true);
    expect(ctx.existsInGroup('Kustomization', 'example.com', 'flux-system', 'apps')).toBe(false);
    expect(ctx.existsInGroup('Kustomization', '', 'flux-system', 'infra')).toBe(true);
    expect(ctx.existsInGroup('Kustomization', 'kustomize.toolkit.fluxcd.io', 'flux-system', 'infra')).toBe(false);
    expect(ctx.existsInGroup('Kustomization', 'kustomize.toolkit.fluxcd.io', 'other', 'apps')).toBe(false);
    expect(ctx.exists('Kustomization', 'flux-system', 'apps')).toBe(true);
    expect(ctx.exists('Kustomization', 'flux-system', 'web')).toBe(false);
  });
});
