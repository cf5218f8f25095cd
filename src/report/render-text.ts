/** Terminal and markdown renderings of the report sections. */
import type { Report } from './model.js';
import { sections, thresholdLines, type Cell, type Table } from './sections.js';
import { pushAll } from '../krm/index.js';

function clip(s: string, max: number): string {
  const one = s.replace(/\s*\n\s*/g, ' ');
  return one.length > max ? one.slice(0, max - 1) + '…' : one;
}

function textTable(t: Table, maxRows: number, indent = '  '): string[] {
  const rows = maxRows > 0 ? t.rows.slice(0, maxRows) : t.rows;
  const cells = rows.map((r) => r.map((c) => clip(String(c), 90)));
  const widths = t.headers.map((h, i) => Math.max(h.length, ...cells.map((r) => r[i]!.length)));
  const line = (r: string[]): string =>
    (indent + r.map((c, i) => (t.numeric.includes(i) ? c.padStart(widths[i]!) : c.padEnd(widths[i]!))).join('  ')).trimEnd();
  const out = [line(t.headers.map((h) => h.toUpperCase())), ...cells.map(line)];
  if (rows.length < t.rows.length)
    out.push(`${indent}… ${t.rows.length - rows.length} more row(s): use --max-rows 0, or --format markdown|html|json`);
  return out;
}

export function renderText(r: Report, opts: { maxRows?: number } = {}): string {
  const maxRows = opts.maxRows ?? 25;
  const out: string[] = [`Cross-site report: ${r.sites.map((s) => s.name).join(', ')}`];
  for (const s of sections(r)) {
    out.push('', `== ${s.title}`);
    for (const n of s.notes) out.push(`  ${n}`);
    for (const { caption, table } of s.tables) {
      if (table.rows.length === 0) continue;
      if (caption) out.push('', `  ${caption}:`);
      pushAll(out, textTable(table, maxRows));
    }
  }
  const broken = thresholdLines(r);
  out.push(
    '',
    broken.length
      ? broken.join('\n')
      : `thresholds: none broken${
          r.thresholds.some((t) => t.count > 0)
            ? ` (${r.thresholds
                .filter((t) => t.count > 0)
                .map((t) => `${t.name} ${t.count}`)
                .join(', ')})`
            : ''
        }`,
  );
  return out.join('\n') + '\n';
}

/** HTML is live in GitHub/GitLab markdown: a resource named `<img onerror=...>` must stay text. */
export function mdHtml(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

export function mdCell(c: Cell): string {
  return mdHtml(String(c)).replace(/\\/g, '\\\\').replace(/\|/g, '\\|').replace(/\r?\n/g, '<br>') || ' ';
}

function mdTable(t: Table): string[] {
  return [
    `| ${t.headers.map(mdCell).join(' | ')} |`,
    `| ${t.headers.map((_, i) => (t.numeric.includes(i) ? '---:' : '---')).join(' | ')} |`,
    ...t.rows.map((r) => `| ${r.map(mdCell).join(' | ')} |`),
  ];
}

export function renderMarkdown(r: Report): string {
  const out: string[] = [`# Cross-site report`, '', `Sites: ${r.sites.map((s) => `\`${s.name}\``).join(', ')}. Evaluated at ${r.now}.`];
  const broken = thresholdLines(r);
  if (broken.length) out.push('', ...broken.map((b) => `> **${mdHtml(b)}**`));
  for (const s of sections(r)) {
    out.push('', `## ${s.title}`, '');
    for (const n of s.notes) out.push(`- ${mdHtml(n)}`);
    for (const { caption, table } of s.tables) {
      out.push('');
      if (caption) out.push(`### ${mdHtml(caption)}`, '');
      if (table.rows.length === 0) out.push('_none_');
      else pushAll(out, mdTable(table));
    }
  }
  return out.join('\n') + '\n';
}
