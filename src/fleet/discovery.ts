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
import { posix } from 'node:path';
import { REPORT_ONLY } from '../krm/index.js';
import { cronScheduleProblem } from '../model/cron.js';
import { isDnsLabel, isDnsSubdomain, toDnsLabel } from '../model/dns-name.js';
import { branchNameProblem } from '../model/git-ref.js';
import { formatCidr, parseCidr } from '../model/ip.js';
import { urlHasCredentials } from '../secrets/redact.js';
import { pushAll } from '../krm/index.js';

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

/** A CronJob's name has at most 52 characters (its Jobs get an 11-character suffix). */
export const CRONJOB_NAME_MAX = 52;
const NAME_PREFIX = 'discovery-';
/** The longest site name: `discovery-<site>` is the CronJob's name. */
export const DISCOVERY_SITE_MAX = CRONJOB_NAME_MAX - NAME_PREFIX.length;

/** A site name from any text (the last part of sitePath): a DNS-1123 label that fits the CronJob name; '' when nothing is left. */
export function discoverySiteName(raw: string): string {
  return toDnsLabel(raw, { max: DISCOVERY_SITE_MAX });
}

/** A setting the objects cannot be made from: the field (as in DiscoverySettings, `egress.gitCidrs[1]`) and why, with the fix. */
export interface DiscoveryProblem {
  field: string;
  message: string;
}

function cidrProblems(list: readonly string[], field: string): DiscoveryProblem[] {
  // an empty `to` list in a NetworkPolicy rule allows every destination
  if (list.length === 0) return [{ field, message: 'is empty: give at least one CIDR (an empty list would allow every destination)' }];
  return list.flatMap((text, i) => {
    if (parseCidr(text)) return [];
    const network = parseCidr(text, { strict: false });
    const why = network
      ? `has host bits set; write ${formatCidr(network)}`
      : 'is not a CIDR; write an address and prefix (10.20.0.0/24, fd00::/64)';
    return [{ field: `${field}[${i}]`, message: `"${text}" ${why}` }];
  });
}

function sitePathProblem(sitePath: string): string | undefined {
  if (posix.isAbsolute(sitePath) || /^[a-z]:[\\/]/i.test(sitePath) || sitePath.includes('\\'))
    return 'is absolute (or has a backslash); give the site folder relative to the repository root, with "/" (sites/east-1)';
  if (sitePath.split('/').includes('..')) return 'has a ".." part; give the site folder inside the repository (sites/east-1)';
  if (posix.normalize(sitePath) === '.') return 'names the repository root; give the site folder (sites/east-1)';
  if (/[\x00-\x1f\x7f]/.test(sitePath)) return 'holds a control character';
  return undefined;
}

function nameProblems(s: DiscoverySettings): DiscoveryProblem[] {
  const out: DiscoveryProblem[] = [];
  if (!isDnsLabel(s.site) || s.site.length > DISCOVERY_SITE_MAX)
    out.push({
      field: 'site',
      message: `"${s.site}" cannot name the objects: a site name here is a DNS-1123 label (lowercase letters, digits, "-") of at most ${DISCOVERY_SITE_MAX} characters, as the CronJob ${NAME_PREFIX}<site> has at most ${CRONJOB_NAME_MAX}; set spec.discovery.site`,
    });
  if (s.namespace !== undefined && !isDnsLabel(s.namespace))
    out.push({ field: 'namespace', message: `"${s.namespace}" is not a namespace name (a DNS-1123 label of at most 63 characters)` });
  for (const field of ['bmcCredentialsSecret', 'gitSecret'] as const) {
    const v = s[field];
    if (v !== undefined && !isDnsSubdomain(v)) out.push({ field, message: `"${v}" is not a Secret name (a DNS-1123 subdomain)` });
  }
  return out;
}

/**
 * Every setting the Kubernetes API server (or git, at run time) would refuse, each with its fix:
 * objects it would refuse block the site's whole Flux Kustomization, so none is written.
 * Never quotes the repository URL (it may hold a token).
 */
export function discoveryProblems(s: DiscoverySettings): DiscoveryProblem[] {
  const out = nameProblems(s);
  if (urlHasCredentials(s.repository))
    out.push({
      field: 'repository',
      message: `carries a credential in the URL (a password or token before "@"): it would be written in plain text into the CronJob and Job (Git, kubectl get -o yaml). Remove it, give the repository over ssh (git@<host>:<path>.git) and put a deploy key that may push in the Secret ${s.gitSecret ?? DISCOVERY_DEFAULTS.gitSecret} (keys ssh-privatekey, known_hosts), which the Job mounts`,
    });
  const path = sitePathProblem(s.sitePath);
  if (path) out.push({ field: 'sitePath', message: `"${s.sitePath}" ${path}` });
  const cron = s.schedule === undefined ? undefined : cronScheduleProblem(s.schedule);
  if (cron) out.push({ field: 'schedule', message: `"${s.schedule}" is not a CronJob schedule: ${cron}; e.g. "17 3 * * *" or @daily` });
  for (const field of ['branch', 'baseBranch'] as const) {
    const v = s[field];
    const why = v === undefined ? undefined : branchNameProblem(v);
    if (why) out.push({ field, message: `"${v}" is not a git branch name: ${why}` });
  }
  pushAll(pushAll(out, cidrProblems(s.egress.bmcCidrs, 'egress.bmcCidrs')), cidrProblems(s.egress.gitCidrs, 'egress.gitCidrs'));
  const ports = s.egress.bmcPorts ?? [...DISCOVERY_DEFAULTS.bmcPorts];
  if (ports.length === 0)
    out.push({ field: 'egress.bmcPorts', message: 'is empty: give at least one port (an empty list would allow every port)' });
  return out;
}

const LABELS = (site: string) => ({ 'app.kubernetes.io/name': 'baremetal-krm-discovery', 'app.kubernetes.io/instance': site });

/**
 * The commit step: a POSIX shell script run by the git image in the clone (kept in the ConfigMap,
 * shown as is). The discovery branch is always the base commit plus one commit holding the new
 * inventory (rebuilt, not stacked): the pull request shows exactly today's hardware against the
 * base, never conflicts with a base that moved, and a squash-merged branch leaves nothing behind.
 * The branch is fetched (shallow) when it exists: the same inventory as the branch's pushes
 * nothing (no new commit every day while the pull request is open); an inventory that is the
 * base's again deletes the branch (nothing is left to propose). Every push names the commit it
 * replaces (`--force-with-lease=refs/heads/B:<sha>`), so a push to the branch since the fetch is
 * never overwritten; a new branch is a plain push.
 */
export const COMMIT_SCRIPT = `set -eu
inventory="$SITE_PATH/inventory"
mkdir -p "$inventory"
git add -A -- "$inventory"
branch_sha=""
found=0
git ls-remote --exit-code --heads origin "refs/heads/$BRANCH" >/dev/null || found=$?
case $found in
  0)
    git fetch -q --depth 1 origin "+refs/heads/$BRANCH:refs/remotes/origin/$BRANCH"
    branch_sha=$(git rev-parse "refs/remotes/origin/$BRANCH")
    if git diff --cached --quiet "$branch_sha" -- "$inventory"; then
      echo "discovery: no hardware change since $BRANCH ($branch_sha)"
      exit 0
    fi ;;
  2) ;;
  *) echo "discovery: cannot list the branches of origin (git ls-remote exit $found)" >&2; exit "$found" ;;
esac
if git diff --cached --quiet HEAD -- "$inventory"; then
  if [ -z "$branch_sha" ]; then
    echo "discovery: no hardware change in $inventory"
    exit 0
  fi
  git push -q --force-with-lease="refs/heads/$BRANCH:$branch_sha" origin ":refs/heads/$BRANCH"
  echo "discovery: $inventory is the base branch's again; deleted $BRANCH (its pull request has nothing left to propose)"
  exit 0
fi
git -c user.name="baremetal-krm discovery" -c user.email="discovery@baremetal-krm.invalid" \\
  commit -q -m "discovery: hardware of $SITE ($(date -u +%Y-%m-%d))"
if [ -n "$branch_sha" ]; then
  git push -q --force-with-lease="refs/heads/$BRANCH:$branch_sha" origin "HEAD:refs/heads/$BRANCH"
else
  git push -q origin "HEAD:refs/heads/$BRANCH"
fi
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
    name: `${NAME_PREFIX}${s.site}`,
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
          workingDir: '/work/repo',
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

/**
 * The discover run's functionConfig. Report-only: one BMC that cannot be reached (or lacks
 * credentials) is then a warning, not an error that makes the sink write nothing, so the
 * inventory of every BMC that answered is still committed (a failed BMC keeps its previous
 * snapshot, and BMCs not listed here keep theirs: discover never drops what it did not ask).
 */
function discoverConfig(s: DiscoverySettings): string {
  const spec = { ...s.discover, mode: 'discover' };
  const metadata = { name: 'discover', annotations: { [REPORT_ONLY]: 'true' } };
  return `${JSON.stringify({ apiVersion: 'baremetal-krm.dev/v1alpha1', kind: 'BMHFromRedfish', metadata, spec }, null, 2)}\n`;
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
 * operator creates by hand (local-config: never applied by a render). Throws on a setting
 * `discoveryProblems` refuses (check those first to report them).
 */
export function discoveryObjects(s: DiscoverySettings, dir = 'discovery'): { path: string; data: Record<string, unknown> }[] {
  const problems = discoveryProblems(s);
  if (problems.length) throw new Error(problems.map((p) => `${p.field} ${p.message}`).join('; '));
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
