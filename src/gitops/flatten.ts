/**
 * Flatten: a rendered kpt package -> the folder Flux applies. Only what a cluster should get
 * survives (local-config items, function configs, the Kptfile and non-KRM documents are dropped;
 * the tools' location annotations are removed, byte-preserving edits otherwise), one file per
 * object (`<folder>/<kind>_<name>.yaml`, the namespace added only where two objects would
 * collide), and a `kustomization.yaml` per top folder.
 *
 * Ordering Flux cannot skip: when the package holds Flux Kustomizations, the root
 * `kustomization.yaml` lists only the folders of Flux objects; every other folder is applied
 * only through the Kustomization whose `spec.path` names it, so applying the root never applies
 * a later phase early. A folder that mixes Flux objects with others, or a phase folder no
 * Kustomization names, is reported.
 */
import { posix } from 'node:path';
import { InstallError, KubeObject, LOCATION_ANNOTATION, compareStrings } from '../krm/index.js';
import { splitWithLines } from '../cli/files.js';
import { HARDWARE_ANNOTATION, hardwareDetails, hostHardware, sensitiveValues } from '../validate/index.js';
import { type FluxPathMapper, fluxKustomizationPaths, foldersOf } from './flux-paths.js';

export const RENDER_HEADER = '# written by baremetal-krm render: do not edit, re-render\n';

/** Function configs of this project's functions (also dropped when not marked local-config). */
const FUNCTION_CONFIG_KINDS = new Set(['SiteFromCatalogue', 'PhasePlanExpand', 'IntentValidate', 'BMHFromRedfish']);
const FUNCTION_ANNOTATION = 'config.kubernetes.io/function';

export interface SourceFile {
  /** relative to the package, `/`-separated */
  path: string;
  text: string;
}

export interface Problem {
  severity: 'error' | 'warning' | 'info';
  message: string;
}

export interface Flattened {
  /** relative path in the output folder -> content */
  files: Map<string, string>;
  kept: number;
  dropped: number;
  problems: Problem[];
}

interface Kept {
  folder: string;
  object: KubeObject;
  source: string;
}

const isFlux = (o: KubeObject): boolean => o.group.endsWith('.toolkit.fluxcd.io');

function dropReason(o: KubeObject): string | undefined {
  if (!o.apiVersion || !o.kind) return 'not a KRM object';
  if (o.isKptfile()) return 'Kptfile';
  if (o.isLocalConfig()) return 'local-config';
  if (o.annotations[FUNCTION_ANNOTATION] !== undefined) return 'function config';
  if (o.group === 'baremetal-krm.dev' && FUNCTION_CONFIG_KINDS.has(o.kind)) return 'function config';
  return undefined;
}

/**
 * Hardware travels with the hosts: a BareMetalHost whose HardwareInventory (same name) stays
 * behind as local-config carries that hardware in its annotation, so a rendered folder alone
 * still shows each host's hardware (report) and its profile request can be told apart from a typo.
 */
function attachHardware(kept: Kept[], inventories: KubeObject[]): void {
  for (const { object: o } of kept) {
    if (o.kind !== 'BareMetalHost' || o.group !== 'metal3.io' || o.get('status.hardware') !== undefined) continue;
    const inv = inventories.find((i) => i.name === o.name && (!i.namespace || i.namespace === o.namespace));
    if (inv) o.setAnnotation(HARDWARE_ANNOTATION, JSON.stringify(hardwareDetails(hostHardware(inv.get('spec'), 'inventory'))));
  }
}

function readObjects(files: readonly SourceFile[], problems: Problem[]): { kept: Kept[]; dropped: number } {
  const kept: Kept[] = [];
  const inventories: KubeObject[] = [];
  let dropped = 0;
  for (const f of [...files].sort((a, b) => compareStrings(a.path, b.path))) {
    if (!/\.ya?ml$/.test(f.path) || f.path === 'Kptfile' || f.path.endsWith('/Kptfile')) continue;
    for (const d of splitWithLines(f.text)) {
      let o: KubeObject;
      try {
        o = KubeObject.fromDocument(d.body);
        void o.annotations; // the header only: items are copied, not read
      } catch (e) {
        if (e instanceof InstallError) throw e; // a broken install, not this input's problem
        problems.push({
          severity: 'error',
          message: `${f.path}:${d.line}: does not parse as YAML (${(e as Error).message.split('\n')[0]})`,
        });
        continue;
      }
      if (dropReason(o)) {
        if (o.kind === 'HardwareInventory' && o.group === 'baremetal-krm.dev') inventories.push(o);
        dropped++;
        continue;
      }
      const folder = posix.dirname(f.path);
      if (folder === '.') {
        problems.push({
          severity: 'error',
          message: `${f.path}: ${o.id} is at the package root: put deployable objects in a folder (a phase entry point)`,
        });
        continue;
      }
      const plaintext = plaintextSecret(o, f.path);
      if (plaintext) {
        problems.push(plaintext);
        continue;
      }
      for (const k of Object.keys(o.annotations)) if (LOCATION_ANNOTATION.test(k)) o.deleteAnnotation(k);
      if (o.get('metadata.annotations') !== undefined && Object.keys(o.annotations).length === 0) o.delete(['metadata', 'annotations']);
      kept.push({ folder, object: o, source: f.path });
    }
  }
  attachHardware(kept, inventories);
  return { kept, dropped };
}

/**
 * No plaintext credential in the folder Flux applies (it goes to Git): a Secret is kept only when
 * every credential value is SOPS ciphertext (`ENC[...]`), empty, or a placeholder Flux or a
 * replacement fills in. Fields are named, values never (intent-validate's `encryption` rule decides).
 */
function plaintextSecret(o: KubeObject, source: string): Problem | undefined {
  if (o.kind !== 'Secret' || o.group !== '') return undefined;
  const { plain } = sensitiveValues(o.data, true);
  if (!plain.length) return undefined;
  const fix =
    'encrypt it with SOPS (sops --encrypt --in-place with a .sops.yaml rule; Flux decrypts it), or let site-from-catalogue write it encrypted (credentials.mode: sops)';
  return {
    severity: 'error',
    message: `${source}: ${o.id} holds plain-text credentials (${plain.join(', ')}), which render never writes into the folder Flux applies: ${fix}`,
  };
}

const fileName = (o: KubeObject, withNamespace: boolean): string =>
  `${o.kind.toLowerCase()}_${withNamespace && o.namespace ? `${o.namespace}_` : ''}${o.name}.yaml`;

/** One file per object; the namespace joins the name only where two objects of a folder would collide. */
function objectFiles(kept: Kept[], problems: Problem[]): Map<string, Kept> {
  const byPath = new Map<string, Kept[]>();
  for (const k of kept) {
    const p = posix.join(k.folder, fileName(k.object, false));
    byPath.set(p, [...(byPath.get(p) ?? []), k]);
  }
  const out = new Map<string, Kept>();
  for (const [p, ks] of byPath) {
    if (ks.length === 1) {
      out.set(p, ks[0]!);
      continue;
    }
    for (const k of ks) {
      const q = posix.join(k.folder, fileName(k.object, true));
      if (out.has(q))
        problems.push({
          severity: 'error',
          message: `${k.source}: ${k.object.id} is also in ${out.get(q)!.source}: one object, one definition`,
        });
      else out.set(q, k);
    }
  }
  return out;
}

const kustomization = (resources: string[]): string =>
  `${RENDER_HEADER}apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n${resources.map((r) => `- ${r}\n`).join('')}`;

const within = (folder: string, path: string): boolean => folder === '' || path.startsWith(`${folder}/`);

/**
 * Entry folders: each folder a Flux Kustomization names (`spec.path`), and the top folder of
 * objects under none of them. An object belongs to the deepest entry folder that holds it, so a
 * phase nested in another (`target/controlplane` in `target`) is applied by its own Kustomization.
 */
function entryFolders(
  objects: Map<string, Kept>,
  mapPath: FluxPathMapper | undefined,
  problems: Problem[],
): { members: Map<string, Set<string>>; flux: Set<string> } {
  const entries = new Set<string>();
  const reached = new Set<string>();
  const kustomizationObjects = [...objects.values()].map((k) => k.object).filter((o) => o.kind === 'Kustomization' && isFlux(o));
  const produced = foldersOf(objects.keys());
  for (const { object, path } of fluxKustomizationPaths(kustomizationObjects)) {
    const local = mapPath?.(path, produced);
    if (local === undefined || local === '') continue; // elsewhere, or the root (the entry point)
    if (![...objects.keys()].some((p) => within(local, p)))
      problems.push({ severity: 'error', message: `Flux ${object.id} applies ${path}, which the render does not produce: fix spec.path` });
    else {
      entries.add(local);
      reached.add(local);
    }
  }
  for (const p of objects.keys()) if (![...entries].some((e) => within(e, p))) entries.add(p.split('/')[0]!);
  const members = new Map<string, Set<string>>([...entries].map((e) => [e, new Set<string>()]));
  for (const p of objects.keys()) {
    const deepest = [...entries].filter((e) => within(e, p)).sort((a, b) => b.length - a.length)[0]!;
    members.get(deepest)!.add(p);
  }
  for (const [e, ps] of members) if (ps.size === 0) members.delete(e);
  const fluxOnly = new Set([...members].filter(([, ps]) => [...ps].some((p) => isFlux(objects.get(p)!.object))).map(([e]) => e));
  for (const e of fluxOnly) {
    const other = [...members.get(e)!].filter((p) => !isFlux(objects.get(p)!.object)).length;
    if (other)
      problems.push({
        severity: 'error',
        message: `${e}/ holds Flux objects and ${other} other object(s): Flux would apply them together, outside the phase order; move the Flux objects to a folder of their own`,
      });
  }
  if (fluxOnly.size)
    for (const e of members.keys())
      if (!fluxOnly.has(e) && !reached.has(e))
        problems.push({
          severity: 'warning',
          message: `${e}/ is applied by no Flux Kustomization (none has it as spec.path): Flux never applies it`,
        });
  return { members, flux: fluxOnly };
}

/** Root and per-entry-folder kustomizations: the root lists only the Flux folders when there are any. */
function kustomizations(objects: Map<string, Kept>, mapPath: FluxPathMapper | undefined, problems: Problem[]): Map<string, string> {
  const { members, flux } = entryFolders(objects, mapPath, problems);
  const out = new Map<string, string>();
  for (const [e, ps] of members)
    out.set(`${e}/kustomization.yaml`, kustomization([...ps].map((p) => p.slice(e.length + 1)).sort(compareStrings)));
  const roots = flux.size ? [...flux] : [...members.keys()];
  out.set('kustomization.yaml', kustomization(roots.sort(compareStrings)));
  return out;
}

/**
 * The output folder's files for a rendered package. `mapPath` turns a Flux Kustomization's
 * `spec.path` into a folder of the output (relative, `''` for its root), undefined when it
 * points elsewhere.
 */
export function flatten(files: readonly SourceFile[], mapPath?: FluxPathMapper): Flattened {
  const problems: Problem[] = [];
  const { kept, dropped } = readObjects(files, problems);
  const objects = objectFiles(kept, problems);
  const out = new Map<string, string>();
  for (const [p, k] of objects) out.set(p, k.object.body.endsWith('\n') ? k.object.body : `${k.object.body}\n`);
  for (const [p, text] of kustomizations(objects, mapPath, problems)) out.set(p, text);
  return { files: new Map([...out].sort((a, b) => compareStrings(a[0], b[0]))), kept: objects.size, dropped, problems };
}
