/** The krusty-style inline harness (test/golden.ts `harness`), on one rule of intent-validate. */
import { describe, it } from 'vitest';
import { definition } from '../functions/intent-validate/function.js';
import { harness } from './golden.js';

const th = harness(definition);

describe('inline one-rule cases (krusty style)', () => {
  it('a BareMetalHost whose BMC Secret is missing: one reference error at the field, file named', async () => {
    const host = `apiVersion: metal3.io/v1alpha1
kind: BareMetalHost
metadata:
  name: node01
  namespace: site
spec:
  online: true
  bootMACAddress: 52:54:00:00:00:01
  bmc:
    address: redfish://10.0.0.1/redfish/v1/Systems/1
    credentialsName: node01-bmc
`;
    const r = await th.run({ 'hosts/node01.yaml': host }, { bundle: true });
    r.expectResults([
      { severity: 'error', rule: 'reference', field: 'spec.bmc.credentialsName', file: 'hosts/node01.yaml', message: /node01-bmc/ },
    ]);
    // a validator changes nothing: the item as kpt sent it
    r.expectItems(
      host.replace(
        'metadata:\n',
        "metadata:\n  annotations:\n    config.kubernetes.io/path: 'hosts/node01.yaml'\n    config.kubernetes.io/index: '0'\n    internal.config.kubernetes.io/path: 'hosts/node01.yaml'\n    internal.config.kubernetes.io/index: '0'\n",
      ),
    );
  });
});
