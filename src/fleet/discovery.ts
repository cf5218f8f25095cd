/**
 * Discovery where the BMCs are: the objects that run bmh-from-redfish in discover mode inside a
 * site's own management cluster (BMC networks are site-local), on a schedule and once, and
 * commit the inventory to a branch so that a pull request carries the hardware change.
 *
 * One Pod, three steps, standard images only (no home-made agent):
 *   1. init `clone`    (a git image): shallow clone of the fleet repository's base branch
 *   2. init `discover` (the bmh-from-redfish image): the function on the site folder, in place
 *                      (`--source`/`--sink`), credentials from a mounted Secret file
 *   3. `commit`        (the git image): commit `<site>/inventory` to the discovery branch and push
 *                      it when the hardware changed; the Git host's pull-request rule does the rest
 * Egress is limited by a NetworkPolicy to the BMC CIDRs, the Git host and cluster DNS; the Pod
 * runs as nobody with a read-only root file system, no service-account token, no privileges.
 */

export interface DiscoverySettings {
  /** the site's name (object names, the branch) */
  site: string;
  /** the site folder in the fleet repository, where `inventory/` lives (`sites/east-1`) */
  sitePath: string;
  /** the fleet repository (`git@github.com:example/fleet.git`; ssh) */
  repository: string;
  baseBranch?: string;
  /** the branch the inventory is pushed to; default `discovery/<site>` */
  branch?: string;
  schedule?: string;
  namespace?: string;
  image: string;
  gitImage?: string;
  /** the BMHFromRedfish spec of the discover run (mode is set to discover) */
  discover: Record<string, unknown>;
  /** Secret with key `credentials.yaml` ({default: {username, password}, ...}) */
  bmcCredentialsSecret?: string;
  /** Secret with keys `ssh-privatekey` and `known_hosts` */
  gitSecret?: string;
  egress: { bmcCidrs: string[]; bmcPorts?: number[]; gitCidrs: string[]; gitPort?: number };
}

export const DISCOVERY_DEFAULTS = {
  namespace: 'baremetal-krm-discovery',
  schedule: '17 3 * * *',
  baseBranch: 'main',
  gitImage: 'docker.io/alpine/git:v2.47.2',
  bmcCredentialsSecret: 'bmc-credentials',
  gitSecret: 'git-ssh',
  bmcPorts: [443],
  gitPort: 22,
} as const;

const LABELS = (site: string) => ({ 'app.kubernetes.io/name': 'baremetal-krm-discovery', 'app.kubernetes.io/instance': site });

/** The commit step: a POSIX shell script run by the git image (kept in the ConfigMap, shown as is). */
const COMMIT_SCRIPT = `set -eu
cd /work/repo
git add -A -- "$SITE_PATH/inventory"
if git diff --cached --quiet; then
  echo "discovery: no hardware change in $SITE_PATH/inventory"
  exit 0
fi
git checkout -B "$BRANCH"
git -c user.name="baremetal-krm discovery" -c user.email="discovery@baremetal-krm.invalid" \\
  commit -q -m "discovery: hardware of $SITE ($(date -u +%Y-%m-%d))"
git push --force-with-lease origin "HEAD:refs/heads/$BRANCH"
echo "discovery: pushed $BRANCH; open (or update) the pull request from it"
`;

interface Names {
  ns: string;
  name: string;
  branch: string;
  gitImage: string;
  bmcSecret: string;
  gitSecret: string;
}

function names(s: DiscoverySettings): Names {
  return {
    ns: s.namespace ?? DISCOVERY_DEFAULTS.namespace,
    name: `discovery-${s.site}`,
    branch: s.branch ?? `discovery/${s.site}`,
    gitImage: s.gitImage ?? DISCOVERY_DEFAULTS.gitImage,
    bmcSecret: s.bmcCredentialsSecret ?? DISCOVERY_DEFAULTS.bmcCredentialsSecret,
    gitSecret: s.gitSecret ?? DISCOVERY_DEFAULTS.gitSecret,
  };
}

const SSH = 'ssh -i /etc/git-ssh/ssh-privatekey -o UserKnownHostsFile=/etc/git-ssh/known_hosts -o StrictHostKeyChecking=yes';
const RESTRICTED = {
  runAsNonRoot: true,
  allowPrivilegeEscalation: false,
  readOnlyRootFilesystem: true,
  capabilities: { drop: ['ALL'] },
};

/** The Pod template every run uses (CronJob and one-off Job alike). */
export function discoveryPodTemplate(s: DiscoverySettings): Record<string, unknown> {
  const n = names(s);
  const gitEnv = [
    { name: 'HOME', value: '/work/home' },
    { name: 'GIT_SSH_COMMAND', value: SSH },
  ];
  return {
    metadata: { labels: LABELS(s.site) },
    spec: {
      serviceAccountName: n.name,
      automountServiceAccountToken: false,
      restartPolicy: 'Never',
      securityContext: { runAsUser: 65534, runAsGroup: 65534, fsGroup: 65534, seccompProfile: { type: 'RuntimeDefault' } },
      initContainers: [
        {
          name: 'clone',
          image: n.gitImage,
          command: ['git', 'clone', '--depth', '1', '--branch', s.baseBranch ?? DISCOVERY_DEFAULTS.baseBranch, s.repository, '/work/repo'],
          env: gitEnv,
          securityContext: RESTRICTED,
          volumeMounts: [
            { name: 'work', mountPath: '/work' },
            { name: 'git-ssh', mountPath: '/etc/git-ssh', readOnly: true },
          ],
        },
        {
          name: 'discover',
          image: s.image,
          args: [
            '--fn-config',
            '/etc/discovery/discover.yaml',
            '--source',
            `/work/repo/${s.sitePath}`,
            '--sink',
            `/work/repo/${s.sitePath}`,
          ],
          env: [{ name: 'BMC_CREDENTIALS_FILE', value: '/etc/bmc/credentials.yaml' }],
          securityContext: RESTRICTED,
          volumeMounts: [
            { name: 'work', mountPath: '/work' },
            { name: 'config', mountPath: '/etc/discovery', readOnly: true },
            { name: 'bmc-credentials', mountPath: '/etc/bmc', readOnly: true },
          ],
        },
      ],
      containers: [
        {
          name: 'commit',
          image: n.gitImage,
          command: ['sh', '/etc/discovery/commit.sh'],
          env: [...gitEnv, { name: 'SITE', value: s.site }, { name: 'SITE_PATH', value: s.sitePath }, { name: 'BRANCH', value: n.branch }],
          securityContext: RESTRICTED,
          volumeMounts: [
            { name: 'work', mountPath: '/work' },
            { name: 'config', mountPath: '/etc/discovery', readOnly: true },
            { name: 'git-ssh', mountPath: '/etc/git-ssh', readOnly: true },
          ],
        },
      ],
      volumes: [
        { name: 'work', emptyDir: {} },
        { name: 'config', configMap: { name: n.name } },
        { name: 'bmc-credentials', secret: { secretName: n.bmcSecret, defaultMode: 0o440 } },
        { name: 'git-ssh', secret: { secretName: n.gitSecret, defaultMode: 0o440 } },
      ],
    },
  };
}

function discoverConfig(s: DiscoverySettings): string {
  const spec = { ...s.discover, mode: 'discover' };
  return `${JSON.stringify({ apiVersion: 'baremetal-krm.dev/v1alpha1', kind: 'BMHFromRedfish', metadata: { name: 'discover' }, spec }, null, 2)}\n`;
}

/** Egress to the BMCs, the Git host and cluster DNS; no ingress at all. */
function networkPolicy(s: DiscoverySettings, n: Names): Record<string, unknown> {
  const ports = (list: number[]) => list.map((port) => ({ protocol: 'TCP', port }));
  return {
    apiVersion: 'networking.k8s.io/v1',
    kind: 'NetworkPolicy',
    metadata: { name: n.name, namespace: n.ns, labels: LABELS(s.site) },
    spec: {
      podSelector: { matchLabels: LABELS(s.site) },
      policyTypes: ['Ingress', 'Egress'],
      ingress: [],
      egress: [
        {
          to: s.egress.bmcCidrs.map((cidr) => ({ ipBlock: { cidr } })),
          ports: ports(s.egress.bmcPorts ?? [...DISCOVERY_DEFAULTS.bmcPorts]),
        },
        { to: s.egress.gitCidrs.map((cidr) => ({ ipBlock: { cidr } })), ports: ports([s.egress.gitPort ?? DISCOVERY_DEFAULTS.gitPort]) },
        {
          to: [
            {
              namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'kube-system' } },
              podSelector: { matchLabels: { 'k8s-app': 'kube-dns' } },
            },
          ],
          ports: [
            { protocol: 'UDP', port: 53 },
            { protocol: 'TCP', port: 53 },
          ],
        },
      ],
    },
  };
}

const JOB_SPEC = { backoffLimit: 1, activeDeadlineSeconds: 3600, ttlSecondsAfterFinished: 86400 };

/**
 * The objects, with the files they go to (relative to `dir`): namespace, service account,
 * config, network policy and CronJob (applied by Flux), and a one-off Job under `once/` that an
 * operator creates by hand (local-config: never applied by a render).
 */
export function discoveryObjects(s: DiscoverySettings, dir = 'discovery'): { path: string; data: Record<string, unknown> }[] {
  // an empty `to` or `ports` list in a NetworkPolicy rule allows everything: refuse it
  if (s.egress.bmcCidrs.length === 0 || s.egress.gitCidrs.length === 0 || (s.egress.bmcPorts ?? [443]).length === 0)
    throw new Error(
      'discovery egress needs at least one BMC CIDR, one BMC port and one Git CIDR (an empty list would allow every destination)',
    );
  const n = names(s);
  const meta = (extra: Record<string, unknown> = {}) => ({ name: n.name, namespace: n.ns, labels: LABELS(s.site), ...extra });
  const template = discoveryPodTemplate(s);
  return [
    { path: `${dir}/namespace.yaml`, data: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: n.ns } } },
    {
      path: `${dir}/serviceaccount.yaml`,
      data: { apiVersion: 'v1', kind: 'ServiceAccount', metadata: meta(), automountServiceAccountToken: false },
    },
    {
      path: `${dir}/configmap.yaml`,
      data: {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: meta(),
        data: { 'discover.yaml': discoverConfig(s), 'commit.sh': COMMIT_SCRIPT },
      },
    },
    { path: `${dir}/networkpolicy.yaml`, data: networkPolicy(s, n) },
    {
      path: `${dir}/cronjob.yaml`,
      data: {
        apiVersion: 'batch/v1',
        kind: 'CronJob',
        metadata: meta(),
        spec: {
          schedule: s.schedule ?? DISCOVERY_DEFAULTS.schedule,
          concurrencyPolicy: 'Forbid',
          startingDeadlineSeconds: 3600,
          successfulJobsHistoryLimit: 3,
          failedJobsHistoryLimit: 3,
          jobTemplate: { spec: { ...JOB_SPEC, template } },
        },
      },
    },
    {
      path: `${dir}/once/job.yaml`,
      data: {
        apiVersion: 'batch/v1',
        kind: 'Job',
        metadata: meta({
          name: `${n.name}-once`,
          annotations: { 'config.kubernetes.io/local-config': 'true' },
        }),
        spec: { ...JOB_SPEC, template },
      },
    },
  ];
}
