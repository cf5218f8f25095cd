/**
 * The report's findings for CI (`--format sarif|junit`): one rule per threshold, one finding per
 * row that counts toward it (an expired or expiring certificate, a plaintext secret, an insecure
 * BMC setting, a host that misses its profile, a role over capacity, a resource that differs
 * between sites). Severity: error when --fail-on names the threshold, else warning or info.
 * intent-validate's own errors are `validate --format sarif`'s.
 */
import { join } from 'node:path';
import type { CiFinding, CiRule, CiSeverity, CiTool } from '../cli/ci-finding.js';
import type { ThresholdName } from './build.js';
import type { Report, ResourceId, SiteSummary } from './model.js';
import { resText } from './sections.js';

const RULES: readonly CiRule[] = [
  {
    id: 'expired-certs',
    severity: 'error',
    short: 'an x509 certificate is past its notAfter',
    full: 'A certificate in a Secret, kubeconfig or catalogue of a site has expired.',
    help: 'Renew the certificate and commit the new one.',
  },
  {
    id: 'expiring-certs',
    severity: 'warning',
    short: 'an x509 certificate expires soon',
    full: 'A certificate expires within the warning window (--warn-days, default 30), or is not valid yet.',
    help: 'Renew it before it expires.',
  },
  {
    id: 'unencrypted-secrets',
    severity: 'error',
    short: 'a Secret or secret-like catalogue holds plaintext values',
    full: 'Sensitive values committed without sops encryption.',
    help: 'Encrypt the document with sops, or keep the values out of Git.',
  },
  {
    id: 'insecure-bmc',
    severity: 'warning',
    short: 'a BMC is reached without TLS verification or over plain http',
    full: 'disableCertificateVerification: true, or an http:// BMC address.',
    help: 'Give the BMC a certificate the operator can verify, and use https.',
  },
  {
    id: 'unmatched-hosts',
    severity: 'warning',
    short: 'a host matches none of its hardware profiles',
    full: 'The inventory of a host misses its HardwareProfile or HardwareClassification, or the host has a profile but no inventory.',
    help: 'Fix the hardware or assign another profile; discover the host to give it an inventory.',
  },
  {
    id: 'over-capacity',
    severity: 'warning',
    short: 'a role has fewer hosts or less capacity than it needs',
    full: 'Fewer hosts than count.active + count.standby, or requests above capacity minus headroom.',
    help: 'Add hosts, or lower requests or replicas.',
  },
  {
    id: 'divergence',
    severity: 'info',
    short: 'a resource differs between sites',
    full: 'A resource is missing from a site, or its fields differ (after the documented ignores and masks).',
    help: 'Make the sites agree, or ignore the field with --ignore.',
  },
];

export const REPORT_TOOL: CiTool = { command: 'report', rules: RULES };

const DEFAULT = new Map(RULES.map((r) => [r.id, r.severity]));

function severity(r: Report, rule: ThresholdName): CiSeverity {
  if (r.failOn.includes(rule)) return 'error';
  // without --fail-on nothing fails the build: errors show as warnings
  return DEFAULT.get(rule) === 'info' ? 'info' : 'warning';
}

/** A path of a site's file as given on the command line. */
function siteFile(site: SiteSummary | undefined, file: string | undefined): string | undefined {
  if (!site || file === undefined) return undefined;
  return site.mode === 'file' ? site.source : join(site.source, file).split('\\').join('/');
}

function finding(
  r: Report,
  rule: ThresholdName,
  site: string,
  message: string,
  at: { resource?: ResourceId; file?: string; line?: number; field?: string },
): CiFinding {
  const summary = r.sites.find((s) => s.name === site);
  const f: CiFinding = { rule, severity: severity(r, rule), message: `${site}: ${message}` };
  const file = siteFile(summary, at.file);
  if (file !== undefined) f.file = file;
  if (file !== undefined && at.line !== undefined) f.line = at.line;
  if (at.resource) f.resource = `${site}/${resText(at.resource)}`;
  if (at.field) f.field = at.field;
  return f;
}

export function reportFindings(r: Report): CiFinding[] {
  const out: CiFinding[] = [];
  for (const c of r.certificates) {
    if (c.status === 'ok') continue;
    const rule: ThresholdName = c.status === 'expired' ? 'expired-certs' : 'expiring-certs';
    const when =
      c.daysLeft < 0
        ? `expired ${-c.daysLeft} day(s) ago`
        : c.status === 'not-yet-valid'
          ? `not valid before ${c.notBefore}`
          : `${c.daysLeft} day(s) left`;
    out.push(
      finding(r, rule, c.site, `certificate "${c.subject}" in ${resText(c.resource)} ${c.field}: ${when} (notAfter ${c.notAfter})`, {
        ...c,
        field: c.field,
      }),
    );
  }
  for (const s of r.security) out.push(finding(r, s.rule === 'encryption' ? 'unencrypted-secrets' : 'insecure-bmc', s.site, s.message, s));
  for (const h of r.hardware.hosts) {
    if (h.profileStatus !== 'mismatch' && h.profileStatus !== 'no-inventory') continue;
    const why =
      h.profileStatus === 'no-inventory'
        ? 'has a profile but no inventory'
        : h.profiles
            .filter((p) => !p.matched)
            .map((p) => `misses ${p.kind} ${p.name}: ${p.failures.join('; ')}`)
            .join('; ');
    out.push(
      finding(r, 'unmatched-hosts', h.site, `host ${h.name} ${why}`, {
        ...h,
        resource: { apiVersion: '', kind: h.kind, name: h.name, ...(h.namespace ? { namespace: h.namespace } : {}) },
      }),
    );
  }
  for (const c of r.capacity)
    if (c.over)
      out.push(
        finding(
          r,
          'over-capacity',
          c.site,
          `role ${c.role} is over capacity (${c.hosts} host(s)${c.wanted !== undefined ? `, ${c.wanted} wanted` : ''})`,
          {},
        ),
      );
  for (const d of r.divergence) {
    const what = d.missingIn.length ? `missing in ${d.missingIn.join(', ')}` : `differs in ${d.fields.map((f) => f.path).join(', ')}`;
    const site = d.names.find((n) => n.name !== null)?.site ?? r.sites[0]!.name;
    out.push({ ...finding(r, 'divergence', site, `${d.identity} ${what}`, {}), identity: d.identity });
  }
  return out;
}
