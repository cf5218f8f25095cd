/**
 * One self-contained static HTML page: inline CSS and JS, no network at view time. Sortable
 * tables (click a header; numbers sort numerically), a filter box per table, and two inline
 * SVG charts: the certificate expiry timeline (days left, one lane per site) and the hardware
 * mix per site (stacked bars by vendor and model).
 */
import type { Report } from './model.js';
import { sections, thresholdLines, type Table } from './sections.js';

const esc = (s: string | number): string =>
  String(s).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

const PALETTE = ['#4e79a7', '#f28e2b', '#59a14f', '#b07aa1', '#76b7b2', '#edc948', '#ff9da7', '#9c755f', '#bab0ac', '#e15759'];
const STATUS_COLOR: Record<string, string> = { expired: '#d62728', expiring: '#ff9f1c', 'not-yet-valid': '#9467bd', ok: '#2ca02c' };

/** Classes of a text cell: bad/warn colours, and `word` for one short word that must never wrap ("expire|d"). */
function cellClass(v: string): string {
  const classes: string[] = [];
  if (v === 'expired' || v === 'OVER' || v.includes('MISMATCH') || v === '(missing)' || v === 'error') classes.push('bad');
  else if (v === 'expiring' || v === 'warning' || v === 'yes' || v === 'not-yet-valid') classes.push('warn');
  if (v.length > 0 && v.length <= 24 && !/\s/.test(v)) classes.push('word');
  return classes.length ? ` class="${classes.join(' ')}"` : '';
}

function htmlTable(id: string, t: Table): string {
  if (t.rows.length === 0) return '<p class="none">none</p>';
  const head = t.headers
    .map((h, i) => `<th${t.numeric.includes(i) ? ' data-type="num"' : ''} title="sort by ${esc(h)}">${esc(h)}</th>`)
    .join('');
  const body = t.rows
    .map(
      (r) => `<tr>${r.map((c, i) => `<td${t.numeric.includes(i) ? ' class="num"' : cellClass(String(c))}>${esc(c)}</td>`).join('')}</tr>`,
    )
    .join('\n');
  return `<input type="search" class="filter" data-table="${id}" placeholder="filter ${t.rows.length} row(s)" aria-label="filter">
<table class="sortable" id="${id}"><thead><tr>${head}</tr></thead>
<tbody>
${body}
</tbody></table>`;
}

function certChart(r: Report): string {
  const certs = r.certificates;
  if (certs.length === 0) return '<p class="none">no certificates</p>';
  const sites = r.sites.map((s) => s.name);
  const left = 140;
  const width = 900;
  const lane = 34;
  const top = 24;
  const height = top + sites.length * lane + 30;
  const days = certs.map((c) => c.daysLeft);
  let lo = Math.min(0, ...days);
  let hi = Math.max(30, ...days);
  const pad = Math.max(10, Math.round((hi - lo) * 0.04));
  lo -= pad;
  hi += pad;
  const x = (d: number): number => Math.round((left + ((d - lo) / (hi - lo)) * (width - left - 20)) * 10) / 10;
  const parts: string[] = [];
  parts.push(
    `<svg id="cert-chart" class="chart" viewBox="0 0 ${width} ${height}" width="${width}" height="${height}" role="img" aria-label="certificate expiry timeline">`,
  );
  sites.forEach((s, i) => {
    const y = top + i * lane + lane / 2;
    parts.push(`<text x="${left - 8}" y="${y + 4}" text-anchor="end" class="lbl">${esc(s)}</text>`);
    parts.push(`<line x1="${left}" x2="${width - 20}" y1="${y}" y2="${y}" class="lane"/>`);
  });
  const axisY = top + sites.length * lane + 4;
  parts.push(
    `<line x1="${x(0)}" x2="${x(0)}" y1="${top - 8}" y2="${axisY}" class="now"/><text x="${x(0)}" y="${top - 10}" text-anchor="middle" class="lbl">now</text>`,
  );
  for (const t of [lo + pad, hi - pad]) parts.push(`<text x="${x(t)}" y="${axisY + 16}" text-anchor="middle" class="lbl">${t} d</text>`);
  const seen = new Map<string, number>();
  for (const c of certs) {
    const i = sites.indexOf(c.site);
    const cx = x(c.daysLeft);
    const k = `${i}|${Math.round(cx / 6)}`;
    const n = seen.get(k) ?? 0;
    seen.set(k, n + 1);
    const cy = top + i * lane + lane / 2 + ((n % 3) - 1) * 7;
    parts.push(
      `<circle class="cert-dot ${c.status}" cx="${cx}" cy="${cy}" r="5" fill="${STATUS_COLOR[c.status]}"><title>${esc(`${c.site}: ${c.subject} (${c.resource.kind}/${c.resource.name} ${c.field}): ${c.daysLeft} days left, ${c.status}, not after ${c.notAfter}`)}</title></circle>`,
    );
  }
  parts.push('</svg>');
  const legend = Object.entries(STATUS_COLOR)
    .map(([k, v]) => `<span class="key"><span class="swatch" style="background:${v}"></span>${esc(k)}</span>`)
    .join(' ');
  return parts.join('\n') + `\n<div class="legend">${legend}</div>`;
}

function mixChart(r: Report): string {
  if (r.hardware.mix.length === 0) return '<p class="none">no hosts</p>';
  const sites = r.sites.map((s) => s.name);
  const models = [...new Set(r.hardware.mix.map((m) => m.model))].sort();
  const color = (m: string): string =>
    m === 'unknown' ? '#cccccc' : PALETTE[models.filter((x) => x !== 'unknown').indexOf(m) % PALETTE.length]!;
  const max = Math.max(...sites.map((s) => r.hardware.mix.filter((m) => m.site === s).reduce((a, m) => a + m.hosts, 0)), 1);
  const left = 140;
  const width = 900;
  const bar = 22;
  const gap = 10;
  const height = sites.length * (bar + gap) + 10;
  const parts = [
    `<svg id="mix-chart" class="chart" viewBox="0 0 ${width} ${height}" width="${width}" height="${height}" role="img" aria-label="hardware mix per site">`,
  ];
  sites.forEach((s, i) => {
    const y = 5 + i * (bar + gap);
    parts.push(`<text x="${left - 8}" y="${y + bar / 2 + 4}" text-anchor="end" class="lbl">${esc(s)}</text>`);
    let xx = left;
    for (const m of r.hardware.mix.filter((m) => m.site === s)) {
      const w = Math.round((m.hosts / max) * (width - left - 60) * 10) / 10;
      parts.push(
        `<rect class="mix-bar" x="${xx}" y="${y}" width="${w}" height="${bar}" fill="${color(m.model)}"><title>${esc(`${s}: ${m.hosts}x ${m.model}`)}</title></rect>`,
      );
      if (w > 18) parts.push(`<text x="${xx + w / 2}" y="${y + bar / 2 + 4}" text-anchor="middle" class="in">${m.hosts}</text>`);
      xx += w;
    }
  });
  parts.push('</svg>');
  const legend = models
    .map((m) => `<span class="key"><span class="swatch" style="background:${color(m)}"></span>${esc(m)}</span>`)
    .join(' ');
  return parts.join('\n') + `\n<div class="legend">${legend}</div>`;
}

const CSS = `
body{font:14px/1.4 system-ui,-apple-system,Segoe UI,Roboto,sans-serif;margin:0;color:#222;background:#fafafa}
header{background:#24292f;color:#fff;padding:12px 24px}header h1{margin:0;font-size:20px}
nav{padding:6px 24px;background:#eaeef2}nav a{margin-right:14px;color:#0550ae;text-decoration:none}
main{padding:8px 24px 40px}section{margin-top:18px}h2{border-bottom:1px solid #d0d7de;padding-bottom:4px}
ul.notes{margin:4px 0 8px;padding-left:18px;color:#444}
table{border-collapse:collapse;margin:6px 0 14px;background:#fff;font-size:13px}
th,td{border:1px solid #d0d7de;padding:3px 8px;text-align:left;vertical-align:top;max-width:520px;overflow-wrap:break-word;word-break:normal;hyphens:none}
td.word,td.num{white-space:nowrap}
th{background:#f0f3f6;cursor:pointer;user-select:none;white-space:nowrap}
th[aria-sort=ascending]::after{content:" \\25B2"}th[aria-sort=descending]::after{content:" \\25BC"}
td.num{text-align:right;font-variant-numeric:tabular-nums}td.bad{background:#ffebe9;color:#a40e26;font-weight:600}td.warn{background:#fff8c5}
.filter{margin:4px 0;padding:3px 6px;width:260px}
.broken-banner{background:#ffebe9;border:1px solid #ff8182;padding:8px 12px;margin:10px 0;font-weight:600}
.ok-banner{background:#dafbe1;border:1px solid #4ac26b;padding:8px 12px;margin:10px 0}
.neutral-banner{background:#f6f8fa;border:1px solid #d0d7de;padding:8px 12px;margin:10px 0}
.chart{background:#fff;border:1px solid #d0d7de;max-width:100%;height:auto}.lbl{font-size:12px;fill:#333}.in{font-size:11px;fill:#fff}
.lane{stroke:#e1e4e8}.now{stroke:#555;stroke-dasharray:4 3}.legend{margin:4px 0 12px}.key{margin-right:12px;font-size:12px}
.swatch{display:inline-block;width:10px;height:10px;margin-right:4px;border-radius:2px}.none{color:#777;font-style:italic}
`;

const JS = `
(function(){
  function val(td,num){var t=td.textContent;if(!num)return t;var n=parseFloat(t);return isNaN(n)?null:n;}
  document.querySelectorAll('table.sortable').forEach(function(t){
    t.querySelectorAll('th').forEach(function(th,i){
      th.addEventListener('click',function(){
        var num=th.getAttribute('data-type')==='num';
        var dir=th.getAttribute('aria-sort')==='ascending'?-1:1;
        t.querySelectorAll('th').forEach(function(h){h.removeAttribute('aria-sort');});
        th.setAttribute('aria-sort',dir===1?'ascending':'descending');
        var tb=t.tBodies[0];var rows=Array.prototype.slice.call(tb.rows);
        rows.forEach(function(r,k){r._k=k;});
        rows.sort(function(a,b){
          var x=val(a.cells[i],num),y=val(b.cells[i],num),c;
          if(num){if(x===null&&y===null)c=0;else if(x===null)c=1;else if(y===null)c=-1;else c=(x-y)*dir;}
          else c=x.localeCompare(y)*dir;
          return c||a._k-b._k;
        });
        rows.forEach(function(r){tb.appendChild(r);});
      });
    });
  });
  document.querySelectorAll('input.filter').forEach(function(inp){
    inp.addEventListener('input',function(){
      var q=inp.value.toLowerCase();var t=document.getElementById(inp.getAttribute('data-table'));
      Array.prototype.forEach.call(t.tBodies[0].rows,function(r){r.style.display=r.textContent.toLowerCase().indexOf(q)>=0?'':'none';});
    });
  });
})();
`;

/**
 * The verdict at the top: broken thresholds in red; expired certificates in red whatever the
 * thresholds; green only when thresholds were set, none is broken and nothing has expired;
 * without --fail-on, say that nothing gates the report.
 */
function banners(r: Report, broken: string[]): string {
  const out = broken.map((b) => `<div class="broken-banner">${esc(b)}</div>`);
  const expired = r.certificates.filter((c) => c.status === 'expired').length;
  if (expired) out.push(`<div class="broken-banner">${esc(expired)} certificate(s) expired</div>`);
  if (broken.length === 0) {
    if (r.failOn.length === 0) out.push('<div class="neutral-banner">no thresholds set (--fail-on): nothing gates this report</div>');
    else if (expired === 0) out.push(`<div class="ok-banner">no threshold broken (--fail-on ${esc(r.failOn.join(','))})</div>`);
    else out.push(`<div class="neutral-banner">no --fail-on threshold broken (${esc(r.failOn.join(','))})</div>`);
  }
  return out.join('\n');
}

export function renderHtml(r: Report): string {
  const secs = sections(r);
  const broken = thresholdLines(r);
  const parts: string[] = [];
  parts.push(
    '<!DOCTYPE html>',
    '<html lang="en"><head><meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width,initial-scale=1">',
  );
  parts.push(`<title>Cross-site report: ${esc(r.sites.map((s) => s.name).join(', '))}</title>`);
  parts.push(`<style>${CSS}</style></head><body>`);
  parts.push(
    `<header><h1>Cross-site report</h1><div>${esc(r.sites.length)} site(s) · evaluated at ${esc(r.now)}${r.reference ? ` · reference ${esc(r.reference)}` : ''}</div></header>`,
  );
  parts.push(`<nav>${secs.map((s) => `<a href="#${s.id}">${esc(s.title)}</a>`).join('')}</nav><main>`);
  parts.push(banners(r, broken));
  for (const s of secs) {
    parts.push(`<section id="${s.id}"><h2>${esc(s.title)}</h2>`);
    parts.push(`<ul class="notes">${s.notes.map((n) => `<li>${esc(n)}</li>`).join('')}</ul>`);
    if (s.id === 'certificates') parts.push('<h3>Expiry timeline (days left)</h3>', certChart(r));
    if (s.id === 'hardware') parts.push('<h3>Hardware mix per site</h3>', mixChart(r));
    s.tables.forEach(({ caption, table }, i) => {
      if (caption) parts.push(`<h3>${esc(caption)}</h3>`);
      parts.push(htmlTable(`${s.id}-table${i ? '-' + i : ''}`, table));
    });
    parts.push('</section>');
  }
  parts.push('</main>', `<script>${JS}</script>`, '</body></html>');
  return parts.join('\n') + '\n';
}
