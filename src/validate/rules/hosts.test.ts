/** Hosts and their networking: duplicates in canonical form, catalogue keys, boot MACs, gateways. */
import { describe, expect, it } from 'vitest';
import { ruleFindings } from '../../../test/analyse-yaml.js';

const b64 = (s: string): string => Buffer.from(s).toString('base64');

function host(name: string, opts: { mac?: string; nd?: object } = {}): string {
  let s = `apiVersion: metal3.io/v1alpha1
kind: BareMetalHost
metadata:
  name: ${name}
  namespace: site
spec:
  bootMACAddress: "${opts.mac ?? '52:54:00:00:00:01'}"
  bmc:
    address: redfish+https://bmc-${name}/redfish/v1/Systems/1
    credentialsName: ${name}-bmc
`;
  if (opts.nd) s += `  networkData:\n    name: ${name}-nd\n`;
  s += `---
apiVersion: v1
kind: Secret
metadata:
  name: ${name}-bmc
  namespace: site
data:
  username: ENC[AES256_GCM,data:AA==,iv:AAAA,tag:BBBB,type:str]
  password: ENC[AES256_GCM,data:AA==,iv:AAAA,tag:BBBB,type:str]
sops:
  version: 3.8.1
`;
  if (opts.nd)
    s += `---
apiVersion: v1
kind: Secret
metadata:
  name: ${name}-nd
  namespace: site
data:
  networkData: ${b64(JSON.stringify(opts.nd))}
`;
  return s;
}

const network = (ip: string, gateway: string, mac = '52:54:00:00:00:01', netmask = '255.255.255.0') => ({
  links: [{ id: 'oam', type: 'phy', ethernet_mac_address: mac }],
  networks: [
    { id: 'oam-ipv4', link: 'oam', type: 'ipv4', ip_address: ip, netmask, routes: [{ network: '0.0.0.0', netmask: '0.0.0.0', gateway }] },
  ],
});

describe('duplicate IP addresses', () => {
  it('compares IPv6 in canonical form: fd00:10::11, fd00:10:0:0::11 and FD00:10::11 are one address', async () => {
    const nd = (ip: string, mac: string) => ({
      links: [{ id: 'l', ethernet_mac_address: mac }],
      networks: [{ id: 'v6', link: 'l', type: 'ipv6', ip_address: ip, netmask: '64' }],
    });
    const yaml = [
      host('a', { mac: '52:54:00:00:00:0a', nd: nd('fd00:10::11', '52:54:00:00:00:0a') }),
      host('b', { mac: '52:54:00:00:00:0b', nd: nd('fd00:10:0:0::11', '52:54:00:00:00:0b') }),
      host('c', { mac: '52:54:00:00:00:0c', nd: nd('FD00:10::11', '52:54:00:00:00:0c') }),
    ].join('---\n');
    const f = await ruleFindings('duplicate', yaml);
    expect(f.map((x) => x.message.split(' of ')[0])).toEqual(['IP fd00:10::11 on network v6', 'IP fd00:10::11 on network v6']);
  });
});

describe('network data of a BareMetalHost', () => {
  it('a gateway outside the subnet of the host address is an error', async () => {
    const f = await ruleFindings('network', host('a', { nd: network('10.0.1.5', '10.0.0.1') }));
    expect(f).toHaveLength(1);
    expect(f[0]!.severity).toBe('error');
    expect(f[0]!.message).toContain(
      'has address 10.0.1.5 (subnet 10.0.1.0/24) but routes[0] goes through gateway 10.0.0.1, outside that subnet',
    );
    expect(await ruleFindings('network', host('a', { nd: network('10.0.0.5', '10.0.0.1') }))).toEqual([]);
    expect(await ruleFindings('network', host('a', { nd: network('10.0.1.5', '10.0.0.1', undefined, '255.255.0.0') }))).toEqual([]);
  });

  it('a boot MAC on no link is a warning naming the links', async () => {
    const f = await ruleFindings('network', host('a', { mac: '52:54:00:00:00:99', nd: network('10.0.0.5', '10.0.0.1') }));
    expect(f.map((x) => [x.severity, x.field])).toEqual([['warning', 'spec.bootMACAddress']]);
    expect(f[0]!.message).toContain('boots from MAC 52:54:00:00:00:99, which is on no link of its network data');
  });
});

describe('host catalogue against the NetworkCatalogue', () => {
  const catalogue = (entry: string) => `apiVersion: airshipit.org/v1alpha1
kind: NetworkCatalogue
metadata:
  name: networking
spec:
  commonHostNetworking:
    links:
    - id: oam
    - id: pxe
    networks:
    - id: oam-ipv4
      link: oam
      netmask: 255.255.255.0
      routes:
      - network: 0.0.0.0
        netmask: 0.0.0.0
        gateway: 10.23.25.1
    - id: pxe-ipv4
      link: pxe
      netmask: 255.255.255.0
---
apiVersion: airshipit.org/v1alpha1
kind: VariableCatalogue
metadata:
  name: host-catalogue
hosts:
  m3:
    node01:
${entry}`;

  it('keys of macAddresses and ipAddresses name links and networks of the NetworkCatalogue', async () => {
    const yaml = catalogue(`      macAddress: 52:54:00:b6:ed:31
      ipAddresses:
        oam-ipv4: 10.23.25.102
        pxe-ip4: 10.23.24.102
      macAddresses:
        oam: 52:54:00:9b:27:4c
        pxee: 52:54:00:b6:ed:31
`);
    const f = await ruleFindings('reference', yaml);
    expect(f.map((x) => x.field)).toEqual(['hosts.m3.node01.macAddresses.pxee', 'hosts.m3.node01.ipAddresses.pxe-ip4']);
    expect(f[0]!.message).toContain('names link pxee, which no NetworkCatalogue in the input defines (links: oam, pxe)');
    expect(f[0]!.message).toContain('(did you mean pxe?)');
  });

  it("an address whose subnet does not hold the network's gateway, and a boot MAC that is none of the NIC MACs", async () => {
    const yaml = catalogue(`      macAddress: 52:54:00:b6:ed:99
      ipAddresses:
        oam-ipv4: 10.23.26.102
      macAddresses:
        oam: 52:54:00:9b:27:4c
`);
    const f = await ruleFindings('network', yaml);
    expect(f.map((x) => [x.severity, x.field])).toEqual([
      ['error', 'hosts.m3.node01.ipAddresses.oam-ipv4'],
      ['warning', 'hosts.m3.node01.macAddress'],
    ]);
  });

  it('says nothing when no NetworkCatalogue declares links (they come from the type, outside the input)', async () => {
    const yaml = `apiVersion: airshipit.org/v1alpha1
kind: VariableCatalogue
metadata:
  name: host-catalogue
hosts:
  m3:
    node01:
      macAddresses:
        anything: 52:54:00:9b:27:4c
`;
    expect(await ruleFindings('reference', yaml)).toEqual([]);
  });
});

describe('BMC schemes BMO has removed', () => {
  it('names the release and what to write instead, for a BareMetalHost and a catalogue entry', async () => {
    const yaml = `apiVersion: metal3.io/v1alpha1
kind: BareMetalHost
metadata:
  name: old
spec:
  bmc:
    address: ilo4://10.0.0.1
---
apiVersion: airshipit.org/v1alpha1
kind: VariableCatalogue
metadata:
  name: hosts
hosts:
  m3:
    node02:
      bmcAddress: idrac://10.0.0.2/
    node03:
      bmcAddress: irmc://10.0.0.3
    node04:
      bmcAddress: idrac-virtualmedia://10.0.0.4/redfish/v1/Systems/System.Embedded.1
`;
    const f = await ruleFindings('bmc-scheme', yaml);
    expect(f.map((x) => x.field)).toEqual(['spec.bmc.address', 'hosts.m3.node02.bmcAddress', 'hosts.m3.node03.bmcAddress']);
    expect(f[0]!.message).toContain('removed in v0.12.0 (metal3-io/baremetal-operator#2750): BMO refuses the host; write ipmi://');
    expect(f[1]!.message).toContain("Dell iDRAC over WS-Man), which Metal3's baremetal-operator removed in v0.6.0");
    expect(f[2]!.message).toContain('removed after v0.12.0-rc.0');
  });
});

describe('Secret references of a BareMetalHost without a namespace', () => {
  const yaml = (hostNs: string) => `apiVersion: metal3.io/v1alpha1
kind: BareMetalHost
metadata:
  name: h
${hostNs}spec:
  bmc:
    address: redfish+https://10.0.0.1/redfish/v1/Systems/1
    credentialsName: h-bmc
  networkData:
    name: h-nd
    namespace: site
---
apiVersion: v1
kind: Secret
metadata:
  name: h-nd
stringData:
  networkData: '{"links": [], "networks": []}'
`;

  it('finds a Secret without a namespace: both get theirs when applied together (kubectl apply -n site)', async () => {
    const f = await ruleFindings('reference', yaml(''));
    expect(f.map((x) => x.field)).toEqual(['spec.bmc.credentialsName']);
  });

  it('does not when the host has a namespace of its own: the Secret may land anywhere', async () => {
    const f = await ruleFindings('reference', yaml('  namespace: site\n'));
    expect(f.map((x) => x.field)).toEqual(['spec.bmc.credentialsName', 'spec.networkData.name']);
  });
});
