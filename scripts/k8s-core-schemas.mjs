#!/usr/bin/env node
// Regenerates schemas/kubernetes/core.json, the closed JSON schemas of the core Kubernetes kinds
// that intent-validate checks (src/validate/prebuild.mjs compiles the committed file; the build
// never needs this script nor the packages it reads). Run it to move to newer Kubernetes fields:
//
//   node scripts/k8s-core-schemas.mjs
//
// It installs, into a temporary folder only, the npm package kubernetes-models (MIT) that ships
// the upstream Kubernetes OpenAPI definitions (Apache-2.0; see schemas/README.md):
// - kubernetes-models@4.3.1 is the last release that ships the definitions as JSON schema
//   (`const schema = {...}` per definition, descriptions already dropped); 5.x ships only
//   precompiled validators. 4.3.1 follows Kubernetes 1.27, so the field names are topped up
//   from kubernetes-models@5.1.0: a field a later Kubernetes added (e.g. Container.restartPolicy
//   for sidecars) is accepted with any value instead of being reported as unknown.
// - $refs become local `definitions` shared by every kind (one standalone module, one copy of
//   PodSpec for Deployment, StatefulSet, DaemonSet, Job, CronJob and Pod); `nullable` adds null;
//   formats are dropped; every object with properties is closed (unknown fields are findings).
// - int-or-string accepts both forms, a quantity a number or a string; status subtrees are
//   controller-owned and not checked; metadata is `{"$objectMeta": true}`, which the build
//   replaces by crd.ts's closed ObjectMeta.
// - What the API server validates beyond OpenAPI and operators get wrong: a container needs
//   `image`; a named port (ServicePort.targetPort, probe ports, ContainerPort.name) must be an
//   IANA service name.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { readdirSync, readFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';

/** apiVersion/kind of the kinds checked, with their definition ids. */
const CORE_KINDS = [
  ['v1', 'Pod'],
  ['v1', 'Service'],
  ['v1', 'ServiceAccount'],
  ['v1', 'PersistentVolumeClaim'],
  ['v1', 'PersistentVolume'],
  ['v1', 'LimitRange'],
  ['v1', 'ResourceQuota'],
  ['v1', 'Endpoints'],
  ['apps/v1', 'Deployment'],
  ['apps/v1', 'StatefulSet'],
  ['apps/v1', 'DaemonSet'],
  ['apps/v1', 'ReplicaSet'],
  ['batch/v1', 'Job'],
  ['batch/v1', 'CronJob'],
  ['rbac.authorization.k8s.io/v1', 'Role'],
  ['rbac.authorization.k8s.io/v1', 'RoleBinding'],
  ['rbac.authorization.k8s.io/v1', 'ClusterRole'],
  ['rbac.authorization.k8s.io/v1', 'ClusterRoleBinding'],
  ['networking.k8s.io/v1', 'Ingress'],
  ['networking.k8s.io/v1', 'NetworkPolicy'],
  ['networking.k8s.io/v1', 'IngressClass'],
  ['policy/v1', 'PodDisruptionBudget'],
  ['storage.k8s.io/v1', 'StorageClass'],
  ['scheduling.k8s.io/v1', 'PriorityClass'],
  ['autoscaling/v2', 'HorizontalPodAutoscaler'],
];

/** Kubernetes IANA_SVC_NAME: what a named port must look like. */
const PORT_NAME = '^(?!.*--)(?=.*[a-z])[a-z0-9]([-a-z0-9]*[a-z0-9])?$';
const NAMED_PORT = { type: ['integer', 'string'], pattern: PORT_NAME, maxLength: 15 };

/** id -> schema object of every definition a package ships as JSON schema. */
function loadDefinitions(dir, defs) {
  for (const f of readdirSync(dir).sort()) {
    if (!f.endsWith('.js')) continue;
    const text = readFileSync(join(dir, f), 'utf8');
    const id = /register\)\("([^"]+)", schema\)/.exec(text)?.[1];
    const body = /^const schema = (\{[\s\S]*?\n\});$/m.exec(text)?.[1];
    if (!id || !body) continue;
    defs.set(id, JSON.parse(body));
  }
}

/** Definition file base name (IoK8sApiCoreV1Container) -> property names in kubernetes-models 5. */
function latestFields(dir, out) {
  if (!existsSync(dir)) return;
  for (const f of readdirSync(dir).sort()) {
    if (!f.endsWith('.js')) continue;
    const text = readFileSync(join(dir, f), 'utf8');
    const names = new Set();
    // the exported validator's own function (others in the file check inlined sub-definitions)
    const main = /export const validate=(validate\d+)/.exec(text)?.[1];
    if (!main) continue;
    const start = text.indexOf(`function ${main}(`);
    if (start < 0) continue;
    const next = text.slice(start + 1).search(/(?:^|[;}])(?:function validate\d+\(|import[{ ]|let |export )/);
    const body = next < 0 ? text.slice(start) : text.slice(start, start + 1 + next);
    for (const m of body.matchAll(/void 0!==data(?:\.([A-Za-z_$][\w$]*)|\["([^"]+)"\])&&/g)) names.add(m[1] ?? m[2]);
    out.set(f.slice(0, -3), names);
  }
}

/** io.k8s.api.core.v1.Container -> IoK8sApiCoreV1Container (kubernetes-models' file names). */
const fileName = (id) =>
  id
    .split(/[.-]/)
    .map((s) => s.charAt(0).toUpperCase() + s.slice(1))
    .join('');

function coreSchemas(nm, objectMeta) {
  const defs = new Map();
  loadDefinitions(join(nm, 'kubernetes-models/_schemas'), defs);
  loadDefinitions(join(nm, '@kubernetes-models/apimachinery/_schemas'), defs);
  const latest = new Map();
  latestFields(join(nm, 'kubernetes-models-v5/_schemas'), latest);
  latestFields(join(nm, 'kubernetes-models-v5/node_modules/@kubernetes-models/apimachinery/_schemas'), latest);
  latestFields(join(nm, '@kubernetes-models/apimachinery-v5/_schemas'), latest);
  if (defs.size < 500) throw new Error(`prebuild: kubernetes-models@4.3.1 not found under ${nm} (npm install)`);

  const SPECIAL = {
    'io.k8s.apimachinery.pkg.util.intstr.IntOrString': { type: ['integer', 'string'] },
    'io.k8s.apimachinery.pkg.api.resource.Quantity': { type: ['number', 'string'] },
    'io.k8s.apimachinery.pkg.apis.meta.v1.Time': { type: 'string' },
    'io.k8s.apimachinery.pkg.apis.meta.v1.MicroTime': { type: 'string' },
    'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta': objectMeta,
    'io.k8s.apimachinery.pkg.runtime.RawExtension': {},
  };
  const definitions = {};
  const added = []; // fields topped up from kubernetes-models 5, for the build log
  const refName = (id) => id.replace(/^io\.k8s\./, '');
  const want = (id) => {
    const name = refName(id);
    if (!(name in definitions)) {
      definitions[name] = {}; // placeholder: recursive definitions (JSONSchemaProps) terminate
      definitions[name] = convertDef(id);
    }
    return { $ref: `#/definitions/${name}` };
  };
  const ref = (s) => /^([^#]+)#$/.exec(s.$ref)?.[1];
  function convert(s, owner, prop) {
    if (s.$ref) {
      const id = ref(s);
      if (!defs.has(id) && !SPECIAL[id]) throw new Error(`prebuild: unknown Kubernetes definition ${s.$ref}`);
      if (prop === 'status' && /Status$/.test(id)) return { type: ['object', 'null'] }; // controller-owned
      return want(id);
    }
    if (Array.isArray(s.oneOf) && s.oneOf.length === 2 && s.oneOf.some((x) => x.type === 'null')) {
      const inner = convert(
        s.oneOf.find((x) => x.type !== 'null'),
        owner,
        prop,
      );
      return inner.$ref ? inner : nullable(inner); // definitions of objects accept null (below)
    }
    const out = {};
    for (const k of ['type', 'enum', 'required', 'minimum', 'maximum', 'pattern', 'minLength', 'maxLength', 'minItems', 'maxItems'])
      if (s[k] !== undefined) out[k] = s[k];
    if (s.items) out.items = convert(s.items, owner, undefined);
    if (s.properties) {
      out.properties = {};
      for (const [k, v] of Object.entries(s.properties)) out.properties[k] = convert(v, owner, k);
      out.additionalProperties = false;
    }
    if (s.additionalProperties !== undefined)
      out.additionalProperties =
        typeof s.additionalProperties === 'object' ? convert(s.additionalProperties, owner, undefined) : s.additionalProperties;
    if (s.nullable) return nullable(out);
    return out;
  }
  function nullable(s) {
    if (s.type === undefined) return s;
    const t = Array.isArray(s.type) ? s.type : [s.type];
    const r = { ...s, type: t.includes('null') ? t : [...t, 'null'] };
    if (r.enum) r.enum = [...r.enum, null];
    return r;
  }
  function convertDef(id) {
    if (SPECIAL[id]) return SPECIAL[id];
    const s = convert(defs.get(id), id, undefined);
    // null is "not set" for the API server: every object definition accepts it (an empty `strategy:`)
    if (s.type === 'object') s.type = ['object', 'null'];
    const newer = latest.get(fileName(id));
    if (newer && s.properties)
      for (const f of [...newer].sort())
        if (!(f in s.properties)) {
          s.properties[f] = {};
          added.push(`${refName(id)}.${f}`);
        }
    // checks the API server makes beyond the OpenAPI schema
    if (id === 'io.k8s.api.core.v1.Container') s.required = [...new Set([...(s.required ?? []), 'image'])].sort();
    if (id === 'io.k8s.api.core.v1.ServicePort') s.properties.targetPort = NAMED_PORT;
    if (id === 'io.k8s.api.core.v1.HTTPGetAction' || id === 'io.k8s.api.core.v1.TCPSocketAction') s.properties.port = NAMED_PORT;
    if (id === 'io.k8s.api.core.v1.ContainerPort') s.properties.name = { type: ['string', 'null'], pattern: PORT_NAME, maxLength: 15 };
    return s;
  }

  const kinds = {};
  for (const [apiVersion, kind] of CORE_KINDS) {
    const [group, version] = apiVersion.includes('/') ? apiVersion.split('/') : ['core', apiVersion];
    const id = `io.k8s.api.${group.replace(/\.k8s\.io$/, '').replace(/\.authorization$/, '')}.${version}.${kind}`;
    if (!defs.has(id)) throw new Error(`prebuild: no Kubernetes definition ${id} for ${apiVersion} ${kind}`);
    const s = convert(defs.get(id), id, undefined);
    s.properties.apiVersion = { type: 'string' };
    s.properties.kind = { type: 'string' };
    s.properties.metadata = objectMeta;
    if (s.properties.status) s.properties.status = { type: 'object' };
    // apiVersion and kind are how the item found this schema; other required fields stay (RoleBinding roleRef)
    s.required = (s.required ?? []).filter((r) => r !== 'apiVersion' && r !== 'kind');
    if (s.required.length === 0) delete s.required;
    kinds[`${apiVersion}/${kind}`] = s;
  }
  return { definitions, kinds, added: added.sort() };
}

const root = join(import.meta.dirname, '..');
const out = join(root, 'schemas/kubernetes/core.json');
const tmp = mkdtempSync(join(tmpdir(), 'k8s-core-schemas-'));
try {
  const dependencies = { 'kubernetes-models': '4.3.1', 'kubernetes-models-v5': 'npm:kubernetes-models@5.1.0' };
  writeFileSync(join(tmp, 'package.json'), JSON.stringify({ name: 'k8s-core-schemas', private: true, dependencies }));
  execFileSync('npm', ['install', '--no-audit', '--no-fund', '--ignore-scripts', '--loglevel=error'], { cwd: tmp, stdio: 'inherit' });
  const core = coreSchemas(join(tmp, 'node_modules'), { $objectMeta: true });
  const doc = {
    $comment:
      'Generated by scripts/k8s-core-schemas.mjs from kubernetes-models@4.3.1 (definitions) and 5.1.0 (newer field names): do not edit',
    source: dependencies,
    added: core.added,
    kinds: core.kinds,
    definitions: core.definitions,
  };
  writeFileSync(out, JSON.stringify(doc, null, 1) + '\n');
  console.log(
    `${out}: ${Object.keys(core.kinds).length} kinds, ${Object.keys(core.definitions).length} definitions, ${core.added.length} newer fields`,
  );
} finally {
  rmSync(tmp, { recursive: true, force: true });
}
