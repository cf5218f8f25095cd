/**
 * Fan out, fan in: a site's slice of the cross-site report as a JSON artifact, so that per-site
 * CI jobs (one per site, in parallel, where each site's files are) compute what the report needs
 * of their site, and one job merges the artifacts into the fleet report. The merged report is
 * the report of all sites read directly: every per-site figure comes from one function
 * (`gatherSite`), and the cross-site parts (divergence, workloads side by side, thresholds) are
 * computed from the slices alone (`assembleReport`).
 */
import { readFileSync } from 'node:fs';
import { addGathered, emptyGathered, type Gathered, type ReportOptions } from './build.js';
import { REPORT_API_VERSION } from './model.js';

export const ARTIFACT_KIND = 'SiteReportArtifact';

/** What shapes a slice: every site of one merge must have been gathered with the same. */
export type SliceOptions = Pick<ReportOptions, 'now' | 'roleLabel' | 'ignoreFields' | 'ignoreValues' | 'defaultIgnores' | 'intent'>;

export interface SiteArtifact {
  apiVersion: typeof REPORT_API_VERSION;
  kind: typeof ARTIFACT_KIND;
  options: SliceOptions;
  slice: Gathered;
}

export function sliceOptions(opts: ReportOptions): SliceOptions {
  const { now, roleLabel, ignoreFields, ignoreValues, defaultIgnores, intent } = opts;
  return { now, roleLabel, ignoreFields, ignoreValues, defaultIgnores, intent };
}

export function toArtifact(slice: Gathered, opts: ReportOptions): string {
  const artifact: SiteArtifact = { apiVersion: REPORT_API_VERSION, kind: ARTIFACT_KIND, options: sliceOptions(opts), slice };
  return `${JSON.stringify(artifact)}\n`;
}

export class ArtifactError extends Error {}

function readArtifact(path: string): SiteArtifact {
  let doc: unknown;
  try {
    doc = JSON.parse(readFileSync(path, 'utf8'));
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw new ArtifactError(`${path}: ${code ? `cannot read (${code})` : 'not JSON'}: pass files written by report --format artifact`);
  }
  const a = doc as Partial<SiteArtifact> | null;
  if (!a || a.apiVersion !== REPORT_API_VERSION || a.kind !== ARTIFACT_KIND || !a.slice || !a.options)
    throw new ArtifactError(`${path}: not a ${ARTIFACT_KIND} (${REPORT_API_VERSION}): pass files written by report --format artifact`);
  return a as SiteArtifact;
}

/**
 * The slices of every artifact, in the order given, and the options they were gathered with;
 * artifacts gathered with other options, or two of one site, are refused.
 */
export function readArtifacts(paths: readonly string[]): { slice: Gathered; options: SliceOptions } {
  const artifacts = paths.map(readArtifact);
  const first = artifacts[0]!;
  const wanted = JSON.stringify(first.options);
  const merged = emptyGathered();
  const sites = new Map<string, string>();
  artifacts.forEach((a, i) => {
    if (JSON.stringify(a.options) !== wanted)
      throw new ArtifactError(
        `${paths[i]}: gathered with other options than ${paths[0]} (now, role label, ignores or intent): run every site's report with the same options`,
      );
    for (const s of a.slice.summaries) {
      if (sites.has(s.name)) throw new ArtifactError(`${paths[i]}: site ${s.name} is in ${sites.get(s.name)} too`);
      sites.set(s.name, paths[i]!);
    }
    addGathered(merged, a.slice);
  });
  return { slice: merged, options: first.options };
}
