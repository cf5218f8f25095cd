import fc from 'fast-check';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { emitLikeYaml, plainYaml, plainYamlItems } from './emit.js';
import { PARSE_OPTIONS } from './lazy.js';
import { needsEscapes } from './printable.js';

describe('plainYaml', () => {
  it('reads back as the same data under YAML 1.1 and 1.2 (property)', () => {
    const json = fc.letrec((tie) => ({
      v: fc.oneof(
        { depthSize: 'small' },
        fc.string(),
        fc.constantFrom('yes', 'on', '0644', '1:20', 'a: b', '#x', ' x', 'x ', '', '- a', 'E0', 'e+5'),
        // characters YAML does not allow as they are, and those go-yaml reads as line breaks: written escaped
        fc.constantFrom('nul\u0000', 'bell\u0007', 'del\u007f', 'c1\u0080\u009f', 'nel\u0085', 'non\ufffe\uffff', 'ls\u2028 x', 'ps\u2029'),
        fc.integer(),
        fc.boolean(),
        fc.constant(null),
        tie('a'),
        tie('o'),
      ),
      a: fc.array(tie('v'), { maxLength: 3 }),
      o: fc.dictionary(fc.oneof(fc.string({ maxLength: 6 }), fc.constantFrom('E0', 'yes', 'on', '1')), tie('v'), { maxKeys: 4 }),
    })).o;
    fc.assert(
      fc.property(json, (v) => {
        const text = plainYaml(v);
        expect(needsEscapes(text)).toBe(false);
        expect(parse(text, PARSE_OPTIONS)).toEqual(v);
        expect(parse(text)).toEqual(v);
      }),
      { numRuns: Number(process.env.FC_RUNS ?? 500) },
    );
  });

  it('writes results the way kpt shows them', () => {
    expect(
      plainYaml([
        {
          message: 'BMC address is not a URL: "x"',
          severity: 'error',
          resourceRef: { kind: 'BareMetalHost', name: 'n1' },
          tags: { rule: 'schema', line: '12' },
        },
      ]),
    ).toBe(
      '- message: "BMC address is not a URL: \\"x\\""\n  severity: error\n  resourceRef:\n    kind: BareMetalHost\n    name: n1\n  tags:\n    rule: schema\n    line: "12"\n',
    );
  });

  it('writes a list piece by piece as it writes it whole (property)', () => {
    const item = fc.oneof(
      fc.dictionary(fc.string({ maxLength: 6 }), fc.oneof(fc.string(), fc.integer(), fc.array(fc.string(), { maxLength: 2 })), {
        maxKeys: 4,
      }),
      fc.array(fc.string(), { maxLength: 3 }),
      fc.string(),
    );
    fc.assert(
      fc.property(fc.array(item, { maxLength: 6 }), (list) => {
        expect([...plainYamlItems(list)].join('')).toBe(list.length ? plainYaml(list) : '');
      }),
      { numRuns: Number(process.env.FC_RUNS ?? 300) },
    );
  });
});

describe('emitLikeYaml', () => {
  const tricky = fc.constantFrom(
    'yes',
    'No',
    'on',
    '0644',
    '0o17',
    '1_000',
    '1:20',
    '52:54:00:00:01:00',
    '52:54:00:b6:ed:31',
    '10.23.25.102',
    '1.27.3',
    '2001-12-14',
    '2001-12-14 21:59:43.10 -5',
    '.inf',
    '-.5',
    '+1',
    '0x1F',
    'e5',
    'E+5',
    '<<',
    '~',
    'null',
    '',
    ' ',
    'a: b',
    'a:b',
    'x #y',
    'x#y',
    '- x',
    '-',
    '?',
    '? x',
    '[x]',
    '{x}',
    '&a',
    '*a',
    '!t',
    '|',
    '>',
    '%x',
    '@x',
    '`x',
    "it's",
    'say "hi"',
    'back\\slash',
    '---',
    '...',
    '--- x',
    'end:',
    'end ',
    ' lead',
    'tab\tx',
    'multi\nline',
    'é',
    'redfish+http://10.0.0.1:8000/x',
    'a,b',
    'x=y',
    '(x)',
  );
  const scalar = fc.oneof(fc.string({ maxLength: 8 }), tricky, fc.integer(), fc.double({ noNaN: true }), fc.boolean(), fc.constant(null));
  const key = fc.oneof(
    fc.stringMatching(/^[a-zA-Z][a-zA-Z0-9./-]{0,10}$/),
    tricky.filter((s) => s !== ''),
  );
  const data = fc.letrec((tie) => ({
    v: fc.oneof({ depthSize: 'small', withCrossShrink: true }, scalar, tie('arr'), tie('obj')),
    arr: fc.array(tie('v'), { maxLength: 4 }),
    obj: fc.dictionary(key, tie('v'), { maxKeys: 5 }),
  })).obj;

  it('writes exactly what yaml.stringify writes, or leaves it to yaml (property)', async () => {
    const { stringify } = await import('yaml');
    const { EMIT_OPTIONS } = await import('./kube-object.js');
    let fast = 0;
    let total = 0;
    fc.assert(
      fc.property(data, (v) => {
        total++;
        const got = emitLikeYaml(v);
        if (got === undefined) return;
        fast++;
        expect(got).toBe(stringify(v, EMIT_OPTIONS));
      }),
      { numRuns: Number(process.env.FC_RUNS ?? 2000) },
    );
    expect(fast).toBeGreaterThan(total / 50); // not vacuous: the fast path is taken and compared
  });

  it('takes the fast path for the objects generators write', async () => {
    const { stringify } = await import('yaml');
    const { EMIT_OPTIONS } = await import('./kube-object.js');
    const bmh = {
      apiVersion: 'metal3.io/v1alpha1',
      kind: 'BareMetalHost',
      metadata: {
        name: 'node01',
        namespace: 'metal3',
        labels: { 'baremetal-krm.dev/vendor': 'dell' },
        annotations: { 'config.kubernetes.io/index': '0' },
      },
      spec: {
        online: false,
        bmc: { address: 'idrac-virtualmedia://10.0.10.11/redfish/v1/Systems/System.Embedded.1', credentialsName: 'node01-bmc-secret' },
        bootMACAddress: '52:54:00:00:01:00',
        rootDeviceHints: { serialNumber: '61X0A002TCD8', minSizeGigabytes: 100 },
        nics: [{ id: 'NIC.Slot.5-1', mac: 'b8:3f:d2:90:97:c4', pxe: true }, {}],
        empty: [],
      },
    };
    const text = emitLikeYaml(bmh);
    expect(text).toBeDefined();
    expect(text).toBe(stringify(bmh, EMIT_OPTIONS));
    expect(text).toContain('bootMACAddress: "52:54:00:00:01:00"'); // YAML 1.1 readers would take it for base 60
  });
});
