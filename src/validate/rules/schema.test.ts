/** Schema rules on what sites hold as committed: nulls, patch directives, airshipctl's reader fields, octal advice. */
import { describe, expect, it } from 'vitest';
import { findingsOf, ruleFindings } from '../../../test/analyse-yaml.js';

describe('schema: what the API server and airshipctl accept is not an error', () => {
  it('accepts null for a field that is not nullable (vlan_mac_address: null, as airshipctl writes it)', async () => {
    const yaml = `apiVersion: airshipit.org/v1alpha1
kind: NetworkCatalogue
metadata:
  name: networking
spec:
  commonHostNetworking:
    links:
    - id: oam
      type: vlan
      vlan_link: bond0
      vlan_id: 100
      vlan_mac_address: null
`;
    expect((await findingsOf(yaml)).filter((f) => f.rule.startsWith('schema'))).toEqual([]);
  });

  it('still reports a wrong type that is not null', async () => {
    const yaml = `apiVersion: v1
kind: ConfigMap
metadata:
  name: c
data:
  a: [1]
`;
    expect((await ruleFindings('schema', yaml)).map((f) => f.field)).toEqual(['data.a']);
  });

  it('takes $patch directives as patch syntax, and a $patch: delete document as a patch (no duplicate with its base)', async () => {
    const yaml = `apiVersion: metal3.io/v1alpha1
kind: BareMetalHost
metadata:
  name: node01
spec:
  online: true
---
apiVersion: metal3.io/v1alpha1
kind: BareMetalHost
metadata:
  name: node01
$patch: delete
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: c
data:
  $patch: replace
  a: b
`;
    const f = await findingsOf(yaml);
    expect(f.filter((x) => x.rule === 'schema-unknown-field' || x.rule === 'duplicate' || x.rule === 'schema')).toEqual([]);
  });

  it('accepts ManifestMetadata.spec (what airshipctl reads; its published CRD is older)', async () => {
    const yaml = `apiVersion: airshipit.org/v1alpha1
kind: ManifestMetadata
metadata:
  name: manifest-metadata
spec:
  phase:
    path: manifests/site/test-site/phases
    docEntryPointPrefix: manifests/site/test-site
  inventory:
    path: manifests/site/test-site/host-inventory
`;
    expect((await findingsOf(yaml)).filter((f) => f.rule.startsWith('schema'))).toEqual([]);
    const typo = yaml.replace('inventory:\n    path', 'inventory:\n    paht');
    expect((await ruleFindings('schema-unknown-field', typo)).map((f) => f.field)).toEqual(['spec.inventory.paht']);
  });
});

describe('yaml-ambiguous: advice valid for the field', () => {
  const pod = (mode: string, replicas = '1') => `apiVersion: apps/v1
kind: Deployment
metadata:
  name: d
spec:
  replicas: ${replicas}
  selector:
    matchLabels:
      app: d
  template:
    metadata:
      labels:
        app: d
    spec:
      containers:
      - name: c
        image: x
      volumes:
      - name: v
        configMap:
          name: c
          defaultMode: ${mode}
          items:
          - key: a
            path: a
            mode: 0400
`;

  it('leaves octal permission fields alone (every Kubernetes tool reads 0555 as 365), and schema accepts them', async () => {
    const f = await findingsOf(pod('0555'));
    expect(f.filter((x) => x.rule === 'yaml-ambiguous' || x.rule.startsWith('schema'))).toEqual([]);
  });

  it('for another octal number says to write the decimal Kubernetes reads, never just "quote it"', async () => {
    const [f, ...rest] = await ruleFindings('yaml-ambiguous', pod('0555', '010'));
    expect(rest).toEqual([]);
    expect(f!.field).toBe('spec.replicas');
    expect(f!.message).toContain('write 8 (what Kubernetes reads) where the field is a number');
  });
});

describe('schema: CRDs in the input', () => {
  const crd = (version: string) => `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.example.com
spec:
  group: example.com
  names: {kind: Widget, plural: widgets}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
${version}
---
`;

  it('checks its objects, with OpenAPI boolean exclusiveMinimum read as draft-07 bounds', async () => {
    // speed: nullable with null listed (crd.ts once listed null twice, which ajv refused)
    const yaml = `${crd('              size: {type: integer, minimum: 0, exclusiveMinimum: true}\n              name: {type: string, pattern: "^[a-z]+$"}\n              speed: {type: string, nullable: true, enum: [fast, null]}')}apiVersion: example.com/v1
kind: Widget
metadata: {name: w}
spec: {size: 0, name: Bad, colour: red, speed: null}
`;
    const found = (await findingsOf(yaml)).filter((f) => f.rule.startsWith('schema'));
    expect(found.map((f) => [f.rule, f.field])).toEqual([
      ['schema-unknown-field', 'spec.colour'],
      ['schema', 'spec.size'],
      ['schema', 'spec.name'],
    ]);
    expect(found[1]!.message).toContain('must be > 0');
  });

  it('says once, naming the place, when its schema cannot be checked; its objects are not checked', async () => {
    const yaml = `${crd('              name: {type: string, pattern: "[a-"}')}apiVersion: example.com/v1
kind: Widget
metadata: {name: w}
spec: {name: 7, colour: red}
`;
    const found = (await findingsOf(yaml)).filter((f) => f.rule.startsWith('schema'));
    expect(found).toHaveLength(1);
    expect(found[0]!.message).toMatch(
      /^the CRD for example\.com\/v1\/Widget does not compile to a schema \(\(root\)\.properties\.spec\.properties\.name: pattern "\[a-" is not a regular expression \(.*\)\): fix the CRD's openAPIV3Schema; its items are not checked$/,
    );
  });
});
