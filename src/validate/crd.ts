/**
 * CustomResourceDefinition openAPIV3Schema -> JSON schema (draft-07, as ajv reads it; walked by
 * validator.ts), in process: the same code turns the built-in CRDs into packed schemas at build
 * time (prebuild.mjs) and any CRD found in the input into a validator at run time. What it
 * does, like the API server's structural schemas and kubeconform's strict mode:
 * - `nullable: true` adds `null` to the type;
 * - OpenAPI's boolean `exclusiveMinimum`/`exclusiveMaximum` become draft-07's numeric ones;
 * - `x-kubernetes-int-or-string` accepts an integer or a string;
 * - an object with `properties`, no `additionalProperties` and no
 *   `x-kubernetes-preserve-unknown-fields` is closed: unknown fields are reported;
 * - `x-kubernetes-embedded-resource` objects may carry apiVersion, kind and metadata;
 * - the root `metadata` is Kubernetes ObjectMeta (label and annotation values must be strings);
 * - descriptions, examples and formats are dropped (formats are not checked, as in kubectl).
 */
import readerFields from '../../schemas/airshipit.org/reader-fields.json' with { type: 'json' };

export type Schema = Record<string, unknown>;

const KEEP = new Set([
  'type',
  'enum',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'minLength',
  'maxLength',
  'pattern',
  'minItems',
  'maxItems',
  'uniqueItems',
  'minProperties',
  'maxProperties',
  'required',
  'multipleOf',
]);

const STRING_MAP: Schema = { type: ['object', 'null'], additionalProperties: { type: 'string' } };

/** Kubernetes ObjectMeta, closed. */
export const OBJECT_META: Schema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    name: { type: 'string' },
    generateName: { type: 'string' },
    namespace: { type: 'string' },
    labels: STRING_MAP,
    annotations: STRING_MAP,
    uid: { type: 'string' },
    resourceVersion: { type: 'string' },
    generation: { type: 'integer' },
    creationTimestamp: { type: ['string', 'null'] },
    deletionTimestamp: { type: ['string', 'null'] },
    deletionGracePeriodSeconds: { type: 'integer' },
    finalizers: { type: 'array', items: { type: 'string' } },
    ownerReferences: { type: 'array', items: { type: 'object' } },
    managedFields: { type: 'array', items: { type: 'object' } },
    selfLink: { type: 'string' },
    // removed from Kubernetes in 1.24, still written by airshipctl Phase documents
    clusterName: { type: 'string' },
  },
};

function convertNode(s: unknown): Schema {
  if (s === null || typeof s !== 'object') return {};
  const src = s as Record<string, unknown>;
  const out: Schema = {};
  for (const k of Object.keys(src)) if (KEEP.has(k)) out[k] = src[k];
  // OpenAPI 3.0 (what CRDs are written in) makes exclusiveMinimum/Maximum booleans on the bound;
  // JSON schema draft-07 makes them the bound itself
  for (const [exclusive, bound] of [
    ['exclusiveMinimum', 'minimum'],
    ['exclusiveMaximum', 'maximum'],
  ] as const) {
    if (typeof out[exclusive] !== 'boolean') continue;
    if (out[exclusive] === true && typeof out[bound] === 'number') {
      out[exclusive] = out[bound];
      delete out[bound];
    } else delete out[exclusive];
  }
  if (src['x-kubernetes-int-or-string'] === true) {
    delete out.type;
    out.anyOf = [{ type: 'integer' }, { type: 'string' }];
  }
  for (const k of ['anyOf', 'oneOf', 'allOf'] as const) {
    // structural schemas repeat constraints inside anyOf/oneOf without types: keep them
    if (Array.isArray(src[k]) && !(k === 'anyOf' && out.anyOf)) out[k] = (src[k] as unknown[]).map(convertNode);
  }
  if (src.not) out.not = convertNode(src.not);
  if (src.items && typeof src.items === 'object' && !Array.isArray(src.items)) out.items = convertNode(src.items);
  const props = src.properties as Record<string, unknown> | undefined;
  if (props && typeof props === 'object') {
    const p: Record<string, Schema> = {};
    for (const key of Object.keys(props)) p[key] = convertNode(props[key]);
    out.properties = p;
  }
  const preserve = src['x-kubernetes-preserve-unknown-fields'] === true;
  if (src['x-kubernetes-embedded-resource'] === true && out.properties) {
    const p = out.properties as Record<string, Schema>;
    p.apiVersion ??= { type: 'string' };
    p.kind ??= { type: 'string' };
    p.metadata ??= { type: 'object' };
  }
  if (src.additionalProperties !== undefined) {
    const ap = src.additionalProperties;
    out.additionalProperties = typeof ap === 'boolean' ? ap : convertNode(ap);
  } else if (out.properties && !preserve) {
    out.additionalProperties = false;
  }
  if (src.nullable === true && out.type !== undefined) {
    out.type = Array.isArray(out.type) ? [...(out.type as string[]), 'null'] : [out.type as string, 'null'];
  }
  if (src.nullable === true && Array.isArray(out.enum) && !out.enum.includes(null)) out.enum = [...(out.enum as unknown[]), null];
  return out;
}

/** Drops every `required` (for CRDs generated from Go structs that list non-omitempty fields). */
function withoutRequired(s: Schema): Schema {
  const out: Schema = {};
  for (const [k, v] of Object.entries(s)) {
    if (k === 'required') continue;
    if (k === 'properties' && v && typeof v === 'object') {
      const p: Record<string, Schema> = {};
      for (const [pk, pv] of Object.entries(v as Record<string, Schema>)) p[pk] = withoutRequired(pv);
      out[k] = p;
    } else if ((k === 'items' || k === 'additionalProperties' || k === 'not') && v && typeof v === 'object')
      out[k] = withoutRequired(v as Schema);
    else if ((k === 'anyOf' || k === 'oneOf' || k === 'allOf') && Array.isArray(v)) out[k] = v.map((x) => withoutRequired(x as Schema));
    else out[k] = v;
  }
  return out;
}

/** A whole object's schema from a CRD version's openAPIV3Schema. */
function objectSchema(openAPIV3Schema: unknown): Schema {
  const root = convertNode(openAPIV3Schema);
  root.type ??= 'object';
  const props = (root.properties ??= {}) as Record<string, Schema>;
  props.apiVersion = { type: 'string' };
  props.kind = { type: 'string' };
  props.metadata = OBJECT_META;
  // status belongs to the controller (a subresource, dropped on apply): not checked
  if (props.status) props.status = { type: 'object' };
  if (root.additionalProperties === undefined && !(openAPIV3Schema as Record<string, unknown>)?.['x-kubernetes-preserve-unknown-fields'])
    root.additionalProperties = false;
  return root;
}

export interface CrdSchema {
  group: string;
  version: string;
  kind: string;
  schema: Schema;
}

/** Every version of a CRD (apiextensions.k8s.io/v1, or v1beta1 with a top-level validation). */
export function crdSchemas(crd: Record<string, unknown>): CrdSchema[] {
  const spec = (crd.spec ?? {}) as Record<string, unknown>;
  const group = String(spec.group ?? '');
  const kind = String(((spec.names ?? {}) as Record<string, unknown>).kind ?? '');
  if (!group || !kind) return [];
  const out: CrdSchema[] = [];
  const topLevel = ((spec.validation ?? {}) as Record<string, unknown>).openAPIV3Schema;
  const versions = Array.isArray(spec.versions) ? (spec.versions as Record<string, unknown>[]) : [];
  if (versions.length === 0 && spec.version && topLevel) {
    out.push({ group, version: String(spec.version), kind, schema: objectSchema(topLevel) });
  }
  for (const v of versions) {
    const s = ((v.schema ?? {}) as Record<string, unknown>).openAPIV3Schema ?? topLevel;
    if (!s || !v.name) continue;
    out.push({ group, version: String(v.name), kind, schema: objectSchema(s) });
  }
  return out;
}

/**
 * The schema a kind's documents are checked against: its CRD's, except for airshipctl's kinds,
 * which airshipctl reads itself: its CRDs come from Go structs (fields without omitempty are
 * "required" even where airshipctl's own documents leave them out) and lag behind what airshipctl
 * reads (schemas/airshipit.org/reader-fields.json adds those fields).
 */
export function checkedSchema(s: CrdSchema): Schema {
  if (s.group !== 'airshipit.org') return s.schema;
  const schema = withoutRequired(s.schema);
  const extra = (readerFields as Record<string, unknown>)[`${s.group}/${s.version}/${s.kind}`];
  if (extra && typeof extra === 'object' && schema.properties && typeof schema.properties === 'object')
    schema.properties = { ...(schema.properties as Schema), ...(extra as Schema) };
  return schema;
}
