/**
 * A seeded generator of the realistic fleet mix issue 16 measures validation on: per 10 objects
 * 3 BareMetalHosts, 3 SOPS-encrypted Secrets (their BMC credentials), 1 Flux Kustomization with
 * `dependsOn`, 1 Deployment and 2 ConfigMaps. Used by the intent-validate benchmark and by the
 * tests that count work per object (a quadratic rule shows as lookups growing with the input).
 *
 * Same seed and size, same bytes. Each Kustomization depends on up to three earlier ones (and
 * sometimes on one that is not in the input, a real finding), so every rule has work to do.
 */

/** A small seeded PRNG (mulberry32): deterministic, no dependency. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const hex2 = (n: number): string => (n & 255).toString(16).padStart(2, '0');

function bareMetalHost(h: number): string {
  const mac = `52:54:${hex2(h >> 16)}:${hex2(h >> 8)}:${hex2(h)}:01`;
  return `apiVersion: metal3.io/v1alpha1
kind: BareMetalHost
metadata:
  name: node${h}
  namespace: site
  labels:
    role: ${h % 10 === 0 ? 'control-plane' : 'worker'}
spec:
  online: true
  bootMACAddress: "${mac}"
  bootMode: UEFI
  bmc:
    address: redfish+https://10.${(h >> 16) & 255}.${(h >> 8) & 255}.${h & 255}/redfish/v1/Systems/1
    credentialsName: node${h}-bmc
  rootDeviceHints:
    deviceName: /dev/sda
`;
}

function sopsSecret(h: number): string {
  return `apiVersion: v1
kind: Secret
metadata:
  name: node${h}-bmc
  namespace: site
type: Opaque
data:
  username: ENC[AES256_GCM,data:dXNlcg==,iv:AAAAAAAAAAAAAAAAAAAAAA==,tag:BBBBBBBBBBBBBBBBBBBBBB==,type:str]
  password: ENC[AES256_GCM,data:cGFzc3dvcmQ=,iv:CCCCCCCCCCCCCCCCCCCCCC==,tag:DDDDDDDDDDDDDDDDDDDDDD==,type:str]
sops:
  lastmodified: "2024-01-01T00:00:00Z"
  mac: ENC[AES256_GCM,data:EEEE,iv:FFFF,tag:GGGG,type:str]
  version: 3.8.1
`;
}

function fluxKustomization(k: number, random: () => number): string {
  const deps: string[] = [];
  const count = k === 0 ? 0 : 1 + Math.floor(random() * 3);
  for (let d = 0; d < count; d++) deps.push(`app${Math.floor(random() * k)}`);
  // one in 500 depends on a Kustomization that is not in the input
  if (k > 0 && random() < 0.002) deps.push(`missing${k}`);
  const dependsOn = deps.length ? `  dependsOn:\n${[...new Set(deps)].map((n) => `  - name: ${n}\n`).join('')}` : '';
  return `apiVersion: kustomize.toolkit.fluxcd.io/v1
kind: Kustomization
metadata:
  name: app${k}
  namespace: flux-system
spec:
  interval: 10m
  path: ./apps/app${k}
  prune: true
  sourceRef:
    kind: GitRepository
    name: fleet
${dependsOn}`;
}

function deployment(k: number): string {
  return `apiVersion: apps/v1
kind: Deployment
metadata:
  name: app${k}
  namespace: apps
  labels:
    app: app${k}
spec:
  replicas: 2
  selector:
    matchLabels:
      app: app${k}
  template:
    metadata:
      labels:
        app: app${k}
    spec:
      containers:
      - name: app
        image: registry.example/app:${k % 50}.0.1
        ports:
        - containerPort: 8080
          name: http
        resources:
          requests:
            cpu: 100m
            memory: 128Mi
`;
}

function configMap(k: number, which: number): string {
  return `apiVersion: v1
kind: ConfigMap
metadata:
  name: app${k}-config-${which}
  namespace: apps
data:
  LOG_LEVEL: info
  FEATURE_FLAGS: "a,b,c"
  app.properties: |
    server.port=8080
    cache.size=${(k * 7 + which) % 1000}
`;
}

/** `objects` documents of the mix (rounded down to whole groups of 10), in a stable order. */
export function fleetMix(objects: number, seed = 16): string[] {
  const random = seededRandom(seed);
  const docs: string[] = [];
  for (let g = 0; g < Math.floor(objects / 10); g++) {
    for (let i = 0; i < 3; i++) docs.push(bareMetalHost(g * 3 + i));
    for (let i = 0; i < 3; i++) docs.push(sopsSecret(g * 3 + i));
    docs.push(fluxKustomization(g, random));
    docs.push(deployment(g));
    docs.push(configMap(g, 0), configMap(g, 1));
  }
  return docs;
}

/** The mix as one multi-document YAML stream (what `baremetal-krm validate` reads from a file). */
export function fleetMixStream(objects: number, seed = 16): string {
  return fleetMix(objects, seed)
    .map((d) => `---\n${d}`)
    .join('');
}
