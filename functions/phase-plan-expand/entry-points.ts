/**
 * A phase's entry point as Flux will build it: the folder must be in Git, and its kustomization
 * must build without plugins (kustomize-controller runs no KRM functions and no exec plugins,
 * which airshipctl's Templater and ReplacementTransformer are). Checked when the package holds
 * the entry points; otherwise the result says that it cannot see them.
 */
import { posix } from 'node:path';
import type { Bundle, Settings, Severity } from './bundle.js';
import { cleanPath, type PluginScan, scanPlugins } from './package-tree.js';

export interface EntryIssue {
  severity: Severity;
  rule: string;
  field: string;
  message: string;
}

const FIELD = 'config.documentEntryPoint';
const RENDER_FIRST =
  'render the phase with kpt or kustomize first (`kustomize build --enable-alpha-plugins`, `airshipctl phase render`), ' +
  'commit the output and point the phase at it (config.documentEntryPoint, or spec.docEntryPointPrefix for every phase)';

/** The entry point's folder in the Flux source (no `./`), or undefined when it leaves the repository. */
export function entryPath(b: Bundle, s: Settings, documentEntryPoint: string): string | undefined {
  const joined = joinEntry(b, s, documentEntryPoint);
  return joined === '..' || joined.startsWith('../') ? undefined : cleanPath(joined);
}

/** `<pathPrefix>/<docEntryPointPrefix>/<documentEntryPoint>`, normalized; like Go's filepath.Join (airshipctl), an absolute entry point is joined under the prefix. */
export function joinEntry(b: Bundle, s: Settings, documentEntryPoint: string): string {
  return posix.normalize(posix.join(s.pathPrefix || '.', b.docPrefix || '.', documentEntryPoint));
}

/**
 * Where the package sits in the Flux source: `spec.packagePath` when set, else the source root
 * when the package holds some entry point there (then the others must be there too), else unknown.
 */
export function packageRoot(b: Bundle, s: Settings): string | undefined {
  if (s.packagePath !== undefined) return cleanPath(s.packagePath);
  if (!b.pkg.hasPaths) return undefined;
  for (const p of b.phases) {
    const e = p.documentEntryPoint === undefined ? undefined : entryPath(b, s, p.documentEntryPoint);
    if (e !== undefined && b.pkg.isDir(e)) return '';
  }
  return undefined;
}

/** The checks of one entry point (`path`: its folder in the Flux source); none when the input has no package paths. */
export function checkEntryPoint(b: Bundle, root: string | undefined, path: string): EntryIssue[] {
  const shown = `./${path}`;
  if (!b.pkg.hasPaths) return [];
  if (root === undefined)
    return [
      {
        severity: 'info',
        rule: 'phase/entrypoint-unchecked',
        field: FIELD,
        message: `entry point ${shown} is not checked: no entry point of the bundle is in this package, so phase-plan-expand cannot tell where the package sits in the Flux source (set spec.packagePath, "" when the package is the root of the source)`,
      },
    ];
  const rel = root === '' ? path : posix.relative(root, path);
  if (rel === '..' || rel.startsWith('../'))
    return [
      {
        severity: 'info',
        rule: 'phase/entrypoint-unchecked',
        field: FIELD,
        message: `entry point ${shown} is outside this package (spec.packagePath "${root}"), so phase-plan-expand cannot see it and does not check it`,
      },
    ];
  if (!b.pkg.isDir(rel))
    return [
      {
        severity: 'error',
        rule: 'phase/entrypoint-missing',
        field: FIELD,
        message: `entry point ${shown} is not in the package (no file under ${rel || '.'}): Flux would fail this Kustomization ("kustomization path not found"); create the folder with the phase's documents or fix config.documentEntryPoint`,
      },
    ];
  return pluginIssues(shown, scanPlugins(b.pkg, rel));
}

function pluginIssues(shown: string, scan: PluginScan): EntryIssue[] {
  const out: EntryIssue[] = [];
  if (scan.plugins.length > 0) {
    const listed = scan.plugins.slice(0, 3).map((p) => `${p.what} (${p.how}, in ${p.file})`);
    const more = scan.plugins.length > 3 ? ` and ${scan.plugins.length - 3} more` : '';
    out.push({
      severity: 'error',
      rule: 'phase/needs-plugins',
      field: FIELD,
      message: `entry point ${shown} needs kustomize plugins, which Flux's kustomize-controller does not run (no KRM functions, no exec plugins): ${listed.join(', ')}${more}; ${RENDER_FIRST}`,
    });
  }
  if (scan.unseen.length > 0) {
    const refs = scan.unseen.slice(0, 3).map((u) => `${u.field} ${u.ref} (in ${u.kustomization})`);
    const more = scan.unseen.length > 3 ? ` and ${scan.unseen.length - 3} more` : '';
    out.push({
      severity: 'warning',
      rule: 'phase/plugins-unchecked',
      field: FIELD,
      message: `entry point ${shown} uses plugins that are not in this package: ${refs.join(', ')}${more}; if they are KRM functions or exec plugins (airshipctl's Templater and ReplacementTransformer are), Flux cannot build the phase: ${RENDER_FIRST}`,
    });
  }
  return out;
}
