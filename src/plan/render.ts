/**
 * The plan as text (problem-matcher lines, one per change), Markdown (a pull-request comment:
 * counts by class, then per host, then the other objects), JSON, and CI findings for SARIF and
 * JUnit. Every renderer reads the same Plan; none reads a Secret.
 */
import type { CiFinding, CiSeverity } from '../cli/ci-finding.js';
import { findingLine } from '../cli/ci-finding.js';
import { mdCell, mdHtml } from '../report/render-text.js';
import { PLAN_RULES } from './classes.js';
import type { Plan, PlanChange } from './model.js';

const RULE = new Map(PLAN_RULES.map((r) => [r.id, r]));

export function resourceText(c: PlanChange): string {
  const r = c.resource;
  return `${r.kind}/${r.namespace ? r.namespace + '/' : ''}${r.name}`;
}

/** How CI shows a change: an error when --fail-on names its class (and no annotation allows it). */
function severityOf(plan: Plan, impact: PlanChange['impacts'][number]): CiSeverity {
  if (plan.failOn.includes(impact.class) && !impact.allowed) return 'error';
  return RULE.get(impact.class)!.severity === 'info' ? 'info' : 'warning';
}

/**
 * One finding per impact of every change: what SARIF, JUnit and the text lines show
 * (no-runtime-effect only in the text, as info: CI has nothing to show for it).
 */
export function planFindings(plan: Plan, withInert = false): CiFinding[] {
  const out: CiFinding[] = [];
  for (const c of plan.changes)
    for (const i of c.impacts) {
      if (i.class === 'no-runtime-effect' && !withInert) continue;
      const f: CiFinding = {
        rule: i.class,
        severity: severityOf(plan, i),
        message: `${resourceText(c)}: ${i.reason}`,
        resource: resourceText(c),
        identity: `${c.action} ${i.reason}`,
      };
      if (c.file !== undefined) f.file = c.file;
      if (c.line !== undefined) f.line = c.line;
      if (i.allowed) f.suppressed = `allowed by the object's baremetal-krm.dev/plan-allow annotation`;
      out.push(f);
    }
  return out;
}

function summaryLine(plan: Plan): string {
  const counts = plan.summary.filter((s) => s.changes > 0).map((s) => `${s.changes} ${s.class}`);
  const n = plan.changes.length;
  return `${n} change(s)${counts.length ? `: ${counts.join(', ')}` : ''}; ${plan.unchanged} object(s) unchanged`;
}

export function renderText(plan: Plan): string {
  const out = [`plan: ${plan.trees.map((t) => `${t.base} -> ${t.head}`).join('; ')}`, summaryLine(plan)];
  for (const f of planFindings(plan, true)) out.push(findingLine(f) + (f.suppressed ? ' (allowed)' : ''));
  return out.join('\n') + '\n';
}

export function renderJson(plan: Plan): string {
  return JSON.stringify(plan, null, 2) + '\n';
}

function row(cells: (string | number)[]): string {
  return `| ${cells.map(mdCell).join(' | ')} |`;
}

function changeCells(plan: Plan, c: PlanChange): (string | number)[] {
  const also = c.impacts.slice(1).filter((i) => i.class !== c.class);
  const reason = c.reason + (also.length ? `; also ${also.map((i) => `${i.class}: ${i.reason}`).join('; ')}` : '');
  const allowed = c.impacts[0]!.allowed ? ' (allowed)' : '';
  const cells: (string | number)[] = [`${c.class}${allowed}`, `${c.action} ${resourceText(c)}`, reason];
  return plan.trees.length > 1 ? [c.tree, ...cells] : cells;
}

export function renderMarkdown(plan: Plan): string {
  const out = ['## baremetal-krm plan', '', plan.trees.map((t) => `\`${mdHtml(t.base)}\` → \`${mdHtml(t.head)}\``).join('<br>'), ''];
  out.push(`**${mdHtml(summaryLine(plan))}**`, '');
  if (plan.failed.length) out.push(`> **Fails \`--fail-on ${plan.failed.join(',')}\`**`, '');
  else if (plan.failOn.length)
    out.push(`> No change of a \`--fail-on\` class (${plan.failOn.join(', ')}) without an allow annotation.`, '');
  const counted = plan.summary.filter((s) => s.changes > 0);
  if (counted.length) {
    out.push('| impact | changes | what it means |', '| --- | ---: | --- |');
    for (const s of counted) out.push(row([s.class, s.changes, RULE.get(s.class)!.short]));
    out.push('');
  }
  const tree = plan.trees.length > 1 ? ['tree'] : [];
  const hostChanges = plan.changes.filter((c) => c.host !== undefined);
  if (hostChanges.length) {
    const byHost = [...hostChanges].sort((a, b) => (a.host! < b.host! ? -1 : a.host! > b.host! ? 1 : 0));
    out.push('### Per host', '', row([...tree, 'host', 'impact', 'change', 'reason']), `|${' --- |'.repeat(tree.length + 4)}`);
    for (const c of byHost) {
      const cells = changeCells(plan, c);
      out.push(row([...cells.slice(0, tree.length), c.host!, ...cells.slice(tree.length)]));
    }
    out.push('');
  }
  const others = plan.changes.filter((c) => c.host === undefined);
  if (others.length) {
    out.push('### Other objects', '', row([...tree, 'impact', 'change', 'reason']), `|${' --- |'.repeat(tree.length + 3)}`);
    for (const c of others) out.push(row(changeCells(plan, c)));
    out.push('');
  }
  if (plan.changes.length === 0) out.push('_No object changes._', '');
  return out.join('\n');
}
