/**
 * SARIF 2.1.0 (OASIS), what GitHub code scanning, GitLab and most CI dashboards import. One run
 * per document; every rule with its metadata; every result with a repository-relative
 * `physicalLocation` (when the finding has a file) and a `partialFingerprints` entry made of
 * what stays the same while the problem does (rule, file, resource, field), never line numbers.
 */
import pkg from '../../package.json' with { type: 'json' };
import { type CiFinding, type CiSeverity, type CiTool, repoRelative, sortFindings } from './ci-finding.js';

const SCHEMA = 'https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json';
/** the name of our fingerprint in partialFingerprints (versioned: a new recipe gets a new name) */
export const FINGERPRINT_KEY = 'baremetalKrmFinding/v1';

const LEVEL: Record<CiSeverity, 'error' | 'warning' | 'note'> = { error: 'error', warning: 'warning', info: 'note' };

/** `a/b c.yaml` -> `a/b%20c.yaml`: a relative URI reference, as the schema's `uri-reference` wants. */
function uriOf(path: string): string {
  return path
    .split('/')
    .map((s) => encodeURIComponent(s))
    .join('/');
}

function fingerprint(f: CiFinding, uri: string): string {
  const parts = [f.rule, uri, f.resource ?? '', f.field ?? '', f.resource ? '' : (f.identity ?? f.message)];
  // node:crypto on first use (a SARIF report): loading it costs every CLI start ~5 ms
  return process.getBuiltinModule('node:crypto').createHash('sha256').update(parts.join('\u0000')).digest('hex');
}

function result(f: CiFinding, ruleIndex: Map<string, number>, cwd: string): Record<string, unknown> {
  const r: Record<string, unknown> = {
    ruleId: f.rule,
    level: LEVEL[f.severity],
    message: { text: f.message },
  };
  const index = ruleIndex.get(f.rule);
  if (index !== undefined) r.ruleIndex = index;
  const uri = f.file ? uriOf(repoRelative(f.file, cwd)) : '';
  if (f.file) {
    const physicalLocation: Record<string, unknown> = { artifactLocation: { uri, uriBaseId: '%SRCROOT%' } };
    if (f.line !== undefined && f.line >= 1) physicalLocation.region = { startLine: f.line };
    const location: Record<string, unknown> = { physicalLocation };
    if (f.resource) location.logicalLocations = [{ name: f.resource, kind: 'object' }];
    r.locations = [location];
  } else if (f.resource) r.locations = [{ logicalLocations: [{ name: f.resource, kind: 'object' }] }];
  r.partialFingerprints = { [FINGERPRINT_KEY]: fingerprint(f, uri) };
  if (f.suppressed) r.suppressions = [{ kind: 'inSource', justification: f.suppressed }];
  return r;
}

/** The SARIF document (as text, newline-terminated) for one command's findings. */
export function toSarif(tool: CiTool, findings: readonly CiFinding[], cwd = process.cwd()): string {
  const rules = [...tool.rules];
  const known = new Set(rules.map((r) => r.id));
  // a finding of a rule the table does not know (an input error) still gets its metadata
  for (const f of findings)
    if (!known.has(f.rule)) {
      known.add(f.rule);
      rules.push({ id: f.rule, severity: f.severity, short: f.rule, full: f.rule, help: 'See the message.' });
    }
  const ruleIndex = new Map(rules.map((r, i) => [r.id, i]));
  const doc = {
    $schema: SCHEMA,
    version: '2.1.0',
    runs: [
      {
        tool: {
          driver: {
            name: 'baremetal-krm',
            version: pkg.version,
            semanticVersion: pkg.version,
            rules: rules.map((r) => ({
              id: r.id,
              name: r.id.replace(/(^|[-/])([a-z])/g, (_m, _s, c: string) => c.toUpperCase()),
              shortDescription: { text: r.short },
              fullDescription: { text: r.full },
              help: { text: r.help },
              defaultConfiguration: { level: LEVEL[r.severity] },
            })),
          },
        },
        automationDetails: { id: `baremetal-krm/${tool.command}/` },
        columnKind: 'utf16CodeUnits',
        results: sortFindings([...findings]).map((f) => result(f, ruleIndex, cwd)),
      },
    ],
  };
  return JSON.stringify(doc, null, 2) + '\n';
}
