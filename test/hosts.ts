/**
 * A BareMetalHost as a site's hosts/ folder holds it after kpt read it (path and index
 * annotations, a comment, firmware and RAID settings), numbered; its BMC and network-data Secrets
 * are not there (two findings each from intent-validate). The runtime bench's item, and the
 * input of the start checks in test/bundle-layout.test.ts.
 */
export function bmh(i: number): string {
  const n = String(i).padStart(5, '0');
  const mac = (i + 0x100000).toString(16).padStart(6, '0').match(/../g)!.join(':');
  return `apiVersion: metal3.io/v1alpha1
kind: BareMetalHost
metadata:
  name: node-${n}
  namespace: target-infra
  labels:
    airshipit.org/k8s-role: worker
    airshipit.org/rack: r${i % 40}
  annotations:
    config.kubernetes.io/index: '0'
    config.kubernetes.io/path: 'hosts/node-${n}.yaml'
    internal.config.kubernetes.io/index: '0'
    internal.config.kubernetes.io/path: 'hosts/node-${n}.yaml'
    internal.config.kubernetes.io/seqindent: 'compact'
spec:
  online: false
  bootMode: UEFI
  bootMACAddress: 52:54:00:${mac}
  bmc:
    address: redfish-virtualmedia://10.23.${i % 250}.${i % 200}/redfish/v1/Systems/1
    credentialsName: node-${n}-bmc-secret
    disableCertificateVerification: false
  rootDeviceHints:
    minSizeGigabytes: 200 # smallest SSD
    rotational: false
  networkData:
    name: node-${n}-network-data
    namespace: target-infra
  hardwareProfile: fixme-profile
  firmware:
    sriovEnabled: false
    virtualizationEnabled: true
    simultaneousMultithreadingEnabled: true
  raid:
    hardwareRAIDVolumes:
    - name: os
      level: "1"
      sizeGibibytes: 480
`;
}
