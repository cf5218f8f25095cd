/**
 * Fan out, fan in: a site's slice of the cross-site report as a JSON artifact, so that per-site
 * CI jobs (one per site, in parallel, where each site's files are) compute what the report needs
 * of their site, and one job merges the artifacts into the fleet report. The merged report is
 * the report of all sites read directly: every per-site figure comes from one function
 * (`gatherSite`), and the cross-site parts (divergence, workloads side by side, thresholds) are
 * computed from the slices alone (`assembleReport`).
 */
import { readFileSync } from 'node:fs';
import validateIntentSpec from '../validate/generated/spec.validate.js';
import { addGathered, emptyGathered, type Gathered, type ReportOptions } from './build.js';
import validateArtifact from './generated/artifact.validate.js';
import { REPORT_API_VERSION } from './model.js';
import { firstAjvText } from './schema-errors.js';
import { isRfc3339Time } from '../model/time.js';
import { redactValueText, scrubStrings } from '../secrets/redact.js';

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
  if (!a || typeof a !== 'object' || a.apiVersion !== REPORT_API_VERSION || a.kind !== ARTIFACT_KIND)
    throw new ArtifactError(`${path}: not a ${ARTIFACT_KIND} (${REPORT_API_VERSION}): pass files written by report --format artifact`);
  // every field, before any is used: a damaged artifact is one line naming the field, never a crash
  const damaged = (what: string): ArtifactError =>
    new ArtifactError(`${path}: ${what}: not as report --format artifact writes it; write the artifact again`);
  if (!validateArtifact(a)) throw damaged(firstAjvText(validateArtifact.errors, ''));
  if (!validateIntentSpec(a.options!.intent)) throw damaged(firstAjvText(validateIntentSpec.errors, 'options.intent'));
  if (!isRfc3339Time(a.options!.now)) throw damaged('options.now: not an RFC 3339 time');
  checkOneSite(a as SiteArtifact, damaged);
  // what an artifact says is scrubbed again as it is read: one written before a scrub learned a
  // form (or edited by hand) would otherwise be printed as it is
  const artifact = a as SiteArtifact;
  artifact.slice = scrubStrings(artifact.slice, (t) => redactValueText(t));
  return artifact;
}

/** Every row of an artifact belongs to its one site (summaries[0]). */
function checkOneSite(a: SiteArtifact, damaged: (what: string) => ArtifactError): void {
  const site = a.slice.summaries[0]!.name;
  const { certificates, hosts, security, capacity, divergence, workloads } = a.slice;
  const rows = { certificates, hosts, security, capacity, divergence, workloads };
  for (const [field, list] of Object.entries(rows)) {
    const i = list.findIndex((r) => r.site !== site);
    if (i >= 0) throw damaged(`slice.${field}[${i}].site is not ${site}, the artifact's site (slice.summaries[0].name)`);
  }
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
