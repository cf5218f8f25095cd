/**
 * A large upstream-style CNI manifest (in the manner of Calico's calico.yaml: Helm-rendered,
 * many CRDs whose descriptions go-yaml folded over lines, a DaemonSet, RBAC, a config block)
 * holding what such manifests carry and kubectl/kustomize (go-yaml) read, while strict YAML
 * does not: flow lists and quoted strings continued at less indentation than their key, a
 * comment glued to a value, tabs in a block scalar, a document with CRLF
 * line ends. Built by code (no vendor file is copied); `expected` holds what go-yaml reads for
 * the odd fields, checked against `kubectl kustomize` in the e2e test.
 */

/** A description as go-yaml writes a long string: a plain scalar folded at ~80 columns. */
function folded(text: string, indent: number): string {
  const words = text.split(' ');
  const lines: string[] = [];
  let cur = '';
  for (const w of words) {
    if (cur && cur.length + w.length + 1 > 80 - indent) {
      lines.push(cur);
      cur = w;
    } else cur = cur ? `${cur} ${w}` : w;
  }
  lines.push(cur);
  return lines.join(`\n${' '.repeat(indent + 2)}`);
}

const SENTENCE =
  'BGPConfigurationSpec contains the values of the BGP configuration for a cluster of nodes running the dataplane with route reflectors and a full mesh of peers';

function crd(kind: string, i: number): string {
  const plural = kind.toLowerCase() + 's';
  /** a description whose key is at column `col` */
  const d = (n: number, col: number): string => folded(`${kind} field ${i} is ${SENTENCE} (${n}).`, col);
  return `# Source: calico/templates/kdd-crds.yaml
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: ${plural}.crd.projectcalico.org
spec:
  group: crd.projectcalico.org
  names:
    kind: ${kind}
    listKind: ${kind}List
    plural: ${plural}
    singular: ${kind.toLowerCase()}
  preserveUnknownFields: false
  scope: Cluster
  versions:
  - name: "v1"# the served version
    schema:
      openAPIV3Schema:
        description: ${folded(`${kind} is ${SENTENCE}.`, 8)}
        properties:
          apiVersion:
            description: ${d(1, 12)}
            type: string
          kind:
            type: string
          metadata:
            type: object
          spec:
            properties:
              cidr:
                description: ${d(2, 16)}
                type: string
              blockSize:
                type: integer
              ipipMode:
                type: string
                enum: [
                  "Never", "Always",
                "CrossSubnet"
                ]
              nodeSelector:
                description: ${d(3, 16)}
                type: string
            type: object
        type: object
    served: true
    storage: true
`;
}

export const CRD_KINDS = [
  'BGPConfiguration',
  'BGPFilter',
  'BGPPeer',
  'BlockAffinity',
  'CalicoNodeStatus',
  'ClusterInformation',
  'FelixConfiguration',
  'GlobalNetworkPolicy',
  'GlobalNetworkSet',
  'HostEndpoint',
  'IPAMBlock',
  'IPAMConfig',
  'IPAMHandle',
  'IPPool',
  'IPReservation',
  'KubeControllersConfiguration',
  'NetworkPolicy',
  'NetworkSet',
];

const configMap = `# Source: calico/templates/calico-config.yaml
kind: ConfigMap
apiVersion: v1
metadata:
  name: calico-config
  namespace: kube-system
data:
  typha_service_name: "none"
  calico_backend: "bird"
  veth_mtu: "0"
  # a Makefile kept beside the config (tabs after the indentation are content)
  Makefile: |
    all:
    \tcalicoctl apply -f pools.yaml
  cni_network_config: |-
    {
      "name": "k8s-pod-network",
      "cniVersion": "0.3.1",
      "plugins": [
        {
          "type": "calico",
          "log_level": "info"
        }
      ]
    }
`;

const daemonSet = `# Source: calico/templates/calico-node.yaml
kind: DaemonSet
apiVersion: apps/v1
metadata:
  name: calico-node
  namespace: kube-system
  labels:
    k8s-app: calico-node
spec:
  selector:
    matchLabels:
      k8s-app: calico-node
  template:
    metadata:
      labels:
        k8s-app: calico-node
    spec:
      hostNetwork: true
      serviceAccountName: calico-node
      containers:
        - name: calico-node
          image: "docker.io/calico/node:v3.26.1"# pinned by the vendor
          imagePullPolicy: IfNotPresent
          args: [
            "--felix",
          "--bird"
          ]
          env:
            - name: CALICO_IPV4POOL_CIDR
              value: "192.168.0.0/16"
            - name: FELIX_HEALTHHOST
              value: "localhost and the
            rest of a long value"
          securityContext:
            privileged: true
      tolerations: [
        {effect: NoSchedule, operator: Exists},
      {key: CriticalAddonsOnly, operator: Exists}
      ]
`;

const rbac = `# Source: calico/templates/calico-node-rbac.yaml\r
kind: ClusterRole\r
apiVersion: rbac.authorization.k8s.io/v1\r
metadata:\r
  name: calico-node\r
rules:\r
  - apiGroups: [""]\r
    resources: ["pods", "nodes", "namespaces"]\r
    verbs: ["get"]\r
`;

const pool = `# an IPPool whose blockSize is not an integer: the manifest's own CRD must catch it
apiVersion: crd.projectcalico.org/v1
kind: IPPool
metadata:
  name: default-ipv4-ippool
spec:
  cidr: 192.168.0.0/16
  blockSize: twenty-six
`;

/** The manifest: a comment header, documents separated by `---` as Helm renders them. */
export function cniManifest(): string {
  const docs = [...CRD_KINDS.map((k, i) => crd(k, i)), configMap, rbac, daemonSet, pool];
  return `---\n# calico.yaml: rendered from the Helm chart\n${docs.join('---\n')}`;
}

/** What go-yaml (kubectl, kustomize) reads for the odd fields of the DaemonSet and the ConfigMap. */
export const expected = {
  image: 'docker.io/calico/node:v3.26.1',
  imagePullPolicy: 'IfNotPresent',
  args: ['--felix', '--bird'],
  healthHost: 'localhost and the rest of a long value',
  tolerations: [
    { effect: 'NoSchedule', operator: 'Exists' },
    { key: 'CriticalAddonsOnly', operator: 'Exists' },
  ],
  makefile: 'all:\n\tcalicoctl apply -f pools.yaml\n',
};
