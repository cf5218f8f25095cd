/** Capacity per role: hosts per topology domain, and requests of the role's workloads against its hosts. */
import { describe, expect, it } from 'vitest';
import { readInput } from '../../krm/index.js';
import { analyse } from '../analyse.js';

function host(name: string, rack: string, cpus: number): string {
  return `apiVersion: metal3.io/v1alpha1
kind: BareMetalHost
metadata:
  name: ${name}
  labels:
    role: worker
    rack: ${rack}
spec:
  online: true
status:
  hardware:
    cpu:
      count: ${cpus}
    ramMebibytes: 65536
`;
}

const deployment = (replicas: number, cpu: string) => `apiVersion: apps/v1
kind: Deployment
metadata:
  name: app
spec:
  replicas: ${replicas}
  selector:
    matchLabels:
      app: a
  template:
    metadata:
      labels:
        app: a
    spec:
      nodeSelector:
        role: worker
      containers:
      - name: c
        image: x
        resources:
          requests:
            cpu: ${cpu}
`;

const spec = {
  capacity: {
    roles: [
      {
        name: 'workers',
        selector: { matchLabels: { role: 'worker' } },
        count: { active: 3 },
        topologyKey: 'rack',
        nodeSelector: { role: 'worker' },
      },
    ],
  },
};

describe('capacity', () => {
  it('counts topology domains and sums requests (replicas x containers) against CPU less headroom', async () => {
    const items = readInput([host('h1', 'r1', 8), host('h2', 'r1', 8), host('h3', 'r2', 8), deployment(5, '2')].join('---\n')).items;
    const a = await analyse(items, spec);
    expect(a.facts.roles).toEqual([
      {
        name: 'workers',
        hosts: ['h1', 'h2', 'h3'],
        wanted: 3,
        domains: 2,
        cpuRequested: 10,
        memoryRequestedMiB: 0,
        cpuCapacity: 24,
        memoryCapacityMiB: 196608,
      },
    ]);
    expect(a.findings.filter((f) => f.rule.startsWith('capacity')).map((f) => f.rule)).toEqual(['capacity-hosts']);
    const over = await analyse(
      readInput([host('h1', 'r1', 8), host('h2', 'r2', 8), host('h3', 'r3', 8), deployment(13, '2')].join('---\n')).items,
      spec,
    );
    expect(over.findings.filter((f) => f.rule.startsWith('capacity')).map((f) => f.message)).toEqual([
      'role workers is over capacity: CPU requests 26 > 24 cores (3 host(s), 0% headroom): add hosts, lower requests or replicas',
    ]);
  });
});
