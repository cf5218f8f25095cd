/**
 * The report as titled tables: one definition shared by the terminal, markdown and HTML
 * renderers, so the three always show the same rows in the same order.
 */
import type { DivergenceEntry, Report, ResourceId } from './model.js';

export type Cell = string | number;

export interface Table {
  headers: string[];
  /** columns holding numbers (sorted numerically in HTML, right-aligned) */
  numeric: number[];
  rows: Cell[][];
}

export interface Section {
  id: string;
  title: string;
  /** one-line summaries shown above the table */
  notes: string[];
  tables: { caption?: string; table: Table }[];
}

export function resText(r: ResourceId | undefined): string {
  if (!r) return '';
  return `${r.kind}/${r.namespace ? r.namespace + '/' : ''}${r.name}`;
}

export function gib(mib: number | undefined): string {
  if (mib === undefined) return '';
  return `${Math.round((mib / 1024) * 10) / 10}`;
}

/** The entry of one site in a per-site list (they follow the sites' order). */
export function ofSite<T extends { site: string }>(list: readonly T[], site: string): T | undefined {
  return list.find((x) => x.site === site);
}

function divergenceValue(e: DivergenceEntry, site: string, v: string | null): string {
  if ((ofSite(e.names, site)?.name ?? null) === null) return '(missing)';
  return v === null ? '(absent)' : v;
}

function sitesSection(r: Report): Section {
  return {
    id: 'sites',
    title: 'Sites',
    notes: [`${r.sites.length} site(s), certificates evaluated at ${r.now}${r.reference ? `, reference site ${r.reference}` : ''}`],
    tables: [
      {
        table: {
          headers: ['site', 'source', 'objects', 'hosts', 'certificates', 'sops-encrypted', 'errors', 'warnings', 'skipped'],
          numeric: [2, 3, 4, 5, 6, 7, 8],
          rows: r.sites.map((s) => [
            s.name,
            `${s.source} (${s.mode})`,
            s.objects,
            s.hosts,
            s.certificates,
            s.encryptedDocuments,
            s.findings.error,
            s.findings.warning,
            s.skipped.length,
          ]),
        },
      },
    ],
  };
}

function certificatesSection(r: Report): Section {
  const expired = r.certificates.filter((c) => c.status === 'expired').length;
  const expiring = r.certificates.filter((c) => c.status === 'expiring').length;
  return {
    id: 'certificates',
    title: 'Certificates',
    notes: [
      `${r.certificates.length} certificate(s): ${expired} expired, ${expiring} expiring soon, sorted by days left`,
      'days left: whole days until notAfter, negative once expired (-3: expired 3 days ago, as validate says)',
    ],
    tables: [
      {
        table: {
          headers: ['days left', 'status', 'site', 'resource', 'field', 'subject', 'issuer', 'not after', 'file'],
          numeric: [0],
          rows: r.certificates.map((c) => [
            c.daysLeft,
            c.status,
            c.site,
            resText(c.resource),
            c.field,
            c.subject,
            c.issuer,
            c.notAfter,
            c.file ?? '',
          ]),
        },
      },
    ],
  };
}

function hostsTable(r: Report): Table {
  return {
    headers: ['site', 'host', 'role', 'vendor', 'model', 'CPU threads', 'arch', 'RAM GiB', 'disks', 'NICs', 'BIOS', 'profile', 'source'],
    numeric: [5, 7, 9],
    rows: r.hardware.hosts.map((h) => [
      h.site,
      h.name,
      h.role ?? '',
      h.manufacturer ?? '',
      h.model ?? '',
      h.cpuCount ?? '',
      h.cpuArch ?? '',
      gib(h.ramMiB),
      h.disks.join(', '),
      h.hardwareSource ? h.nicCount : '',
      h.biosVersion ?? '',
      h.profiles.length
        ? h.profiles.map((p) => `${p.name} ${p.matched ? 'ok' : 'MISMATCH'}`).join(', ')
        : h.profileStatus === 'none'
          ? '(none)'
          : h.profileStatus === 'unchecked'
            ? `${h.requestedProfile} (not in the input)`
            : '',
      h.kind === 'host catalogue' ? '(host catalogue only)' : (h.hardwareSource ?? '(no inventory)'),
    ]),
  };
}

function hardwareSection(r: Report): Section {
  const unmatched = r.hardware.hosts.filter((h) => h.profileStatus === 'mismatch' || h.profileStatus === 'no-inventory');
  const noProfile = r.hardware.hosts.filter((h) => h.profileStatus === 'none').length;
  const catalogued = r.hardware.hosts.filter((h) => h.kind === 'host catalogue').length;
  const overall = new Map<string, number>();
  for (const m of r.hardware.mix) overall.set(m.model, (overall.get(m.model) ?? 0) + m.hosts);
  const mixText =
    [...overall]
      .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
      .map(([m, n]) => `${n}x ${m}`)
      .join(', ') || 'no hosts';
  const notes = [
    `${r.hardware.hosts.length} host(s); ${unmatched.length} match none of their profiles, ${noProfile} have no profile`,
    `overall: ${mixText}`,
  ];
  if (catalogued) notes.push(`${catalogued} host(s) only in a host catalogue (no BareMetalHost or inventory yet)`);
  const tables: Section['tables'] = [
    { caption: 'Hosts', table: hostsTable(r) },
    {
      caption: 'Hardware mix per site',
      table: { headers: ['site', 'model', 'hosts'], numeric: [2], rows: r.hardware.mix.map((m) => [m.site, m.model, m.hosts]) },
    },
  ];
  if (unmatched.length)
    tables.push({
      caption: 'Hosts that match none of their profiles',
      table: {
        headers: ['site', 'host', 'profile', 'why'],
        numeric: [],
        rows: unmatched.flatMap((h) =>
          h.profiles.filter((p) => !p.matched).map((p) => [h.site, h.name, `${p.kind} ${p.name}`, p.failures.join('; ')] as Cell[]),
        ),
      },
    });
  return { id: 'hardware', title: 'Hardware', notes, tables };
}

function divergenceSection(r: Report): Section {
  const siteNames = r.sites.map((s) => s.name);
  return {
    id: 'divergence',
    title: 'Divergence',
    notes: [
      r.sites.length < 2
        ? 'one site: nothing to compare'
        : `${r.divergence.length} resource(s) differ${r.reference ? ` from the reference site ${r.reference}` : ' between sites'} (hosts matched by role and profile; addresses, MACs, serials and names ignored)`,
    ],
    tables: [
      {
        table: {
          headers: ['resource', 'field', ...siteNames],
          numeric: [],
          rows: r.divergence.flatMap((e) => {
            const rows: Cell[][] = [];
            if (e.missingIn.length) rows.push([e.identity, '(resource)', ...siteNames.map((s) => ofSite(e.names, s)?.name ?? '(missing)')]);
            for (const f of e.fields)
              rows.push([e.identity, f.path, ...siteNames.map((s) => divergenceValue(e, s, ofSite(f.values, s)?.value ?? null))]);
            return rows;
          }),
        },
      },
    ],
  };
}

function workloadsSection(r: Report): Section {
  const siteNames = r.sites.map((s) => s.name);
  const notes = [
    `${r.workloads.length} workload(s) and Flux object(s), ${r.workloads.filter((w) => w.differs).length} differ between sites`,
  ];
  if (r.workloads.some((w) => w.versions.some((v) => v.version?.includes('?'))))
    notes.push(
      '? = not set in the manifest: a chart without name or version source, a Flux object without sourceRef, a workload without image',
    );
  return {
    id: 'workloads',
    title: 'Workloads',
    notes,
    tables: [
      {
        table: {
          headers: ['kind', 'name', 'differs', ...siteNames],
          numeric: [],
          rows: r.workloads.map((w) => [
            w.kind,
            `${w.namespace ? w.namespace + '/' : ''}${w.name}`,
            w.differs ? 'yes' : '',
            ...siteNames.map((s) => ofSite(w.versions, s)?.version ?? '(missing)'),
          ]),
        },
      },
    ],
  };
}

function securitySection(r: Report): Section {
  const notes = r.sites.map((s) => {
    const rows = r.security.filter((x) => x.site === s.name);
    return `${s.name}: ${rows.filter((x) => x.rule === 'encryption').length} unencrypted, ${rows.filter((x) => x.rule !== 'encryption').length} insecure BMC setting(s)`;
  });
  return {
    id: 'security',
    title: 'Security',
    notes,
    tables: [
      {
        table: {
          headers: ['site', 'rule', 'severity', 'resource', 'field', 'message'],
          numeric: [],
          rows: r.security.map((x) => [x.site, x.rule, x.severity, resText(x.resource), x.field ?? '', x.message]),
        },
      },
    ],
  };
}

function capacitySection(r: Report): Section {
  return {
    id: 'capacity',
    title: 'Capacity',
    notes: [`${r.capacity.filter((c) => c.over).length} role(s) over capacity; CPU in threads/cores, memory in GiB`],
    tables: [
      {
        table: {
          headers: [
            'site',
            'role',
            'hosts',
            'wanted',
            'CPU requested',
            'CPU available',
            'memory requested GiB',
            'memory available GiB',
            'no inventory',
            'over',
          ],
          numeric: [2, 3, 4, 5, 6, 7, 8],
          rows: r.capacity.map((c) => [
            c.site,
            c.role,
            c.hosts,
            c.wanted ?? '',
            c.cpuRequested ?? '',
            c.cpuAvailable ?? '',
            gib(c.memoryRequestedMiB),
            gib(c.memoryAvailableMiB),
            c.hostsWithoutInventory,
            c.over ? 'OVER' : '',
          ]),
        },
      },
    ],
  };
}

export function sections(r: Report): Section[] {
  return [
    sitesSection(r),
    certificatesSection(r),
    hardwareSection(r),
    divergenceSection(r),
    workloadsSection(r),
    securitySection(r),
    capacitySection(r),
  ];
}

/** `FAIL expired-certs (2)` lines for broken thresholds. */
export function thresholdLines(r: Report): string[] {
  return r.thresholds.filter((t) => t.broken).map((t) => `threshold broken: --fail-on ${t.name} (${t.count})`);
}
