/** The NetworkCatalogue documents as the function reads them: merged in file order, every entry keyed by an id. */
import { describe, it } from 'vitest';
import { harness } from '../../test/golden.js';
import { definition } from './function.js';

const th = harness(definition);
const hosts = `apiVersion: airshipit.org/v1alpha1
kind: VariableCatalogue
metadata:
  name: host-catalogue
hosts:
  m3:
    node01: {bootMode: UEFI, macAddress: "52:54:00:00:00:01", bmcAddress: "ipmi://10.0.0.1", ipAddresses: {oam-ipv4: 10.0.0.5}}
`;
const network = (links: string) => `apiVersion: airshipit.org/v1alpha1
kind: NetworkCatalogue
metadata:
  name: networking
spec:
  commonHostNetworking:
    links: ${links}
    networks: [{id: oam-ipv4, type: ipv4, link: oam, netmask: 255.255.255.0}]
    services: []
`;

describe('NetworkCatalogue documents', () => {
  it('a link that is no mapping, or has no text id, is an error naming it (not dropped, not written as [object Object])', async () => {
    const r = await th.run({ 'type/networking.yaml': network('[{id: {a: 1}, name: x}, oam, {id: oam, name: oam}]'), 'hosts.yaml': hosts });
    r.expectResults([
      { severity: 'error', rule: 'network/bad-entry', field: 'spec.commonHostNetworking.links[0]', file: 'type/networking.yaml' },
      { severity: 'error', rule: 'network/bad-entry', field: 'spec.commonHostNetworking.links[1]', file: 'type/networking.yaml' },
    ]);
  });

  it('the later file wins a field both set, and a result says which document won', async () => {
    const site =
      'apiVersion: airshipit.org/v1alpha1\nkind: NetworkCatalogue\nmetadata:\n  name: networking\nspec:\n  commonHostNetworking:\n    services: [{address: 10.0.0.53, type: dns}]\n';
    const r = await th.run(
      { 'site/networking.yaml': site, 'type/networking.yaml': network('[{id: oam, name: oam}]'), 'hosts.yaml': hosts },
      { bundle: true },
    );
    r.expectResults([
      {
        severity: 'info',
        rule: 'network/merge-order',
        field: 'spec.commonHostNetworking.services',
        file: 'type/networking.yaml',
        message:
          'NetworkCatalogue networking (type/networking.yaml) wins the merge over networking (site/networking.yaml) at spec.commonHostNetworking.services: the 2 NetworkCatalogue documents merge in input order (the order of their files), the later one wins',
      },
      { severity: 'info', rule: 'credentials/to-create' },
    ]);
  });
});
