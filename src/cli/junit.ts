/**
 * JUnit XML, what GitLab, Jenkins and most CI test tabs read: one document, one `testsuite` per
 * file, one `testcase` per file x rule. A rule with error findings in a file is a `failure`
 * (message: the first finding, body: every finding line); warnings and info keep the test case
 * green and go to its `system-out`, as do findings an operator accepted.
 */
import { type CiFinding, type CiTool, findingLine, sortFindings } from './ci-finding.js';

/** Text as XML 1.0 character data: markup escaped, characters XML cannot hold dropped. */
export function xmlText(s: string): string {
  return s
    .replace(/[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu, '')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;');
}

const NO_FILE = '(no file)';

interface Case {
  rule: string;
  failures: CiFinding[];
  other: CiFinding[];
}

function testcase(file: string, c: Case): string {
  const open = `    <testcase classname="${xmlText(file)}" name="${xmlText(c.rule)}"`;
  if (c.failures.length === 0 && c.other.length === 0) return `${open}/>`;
  const parts = [`${open}>`];
  if (c.failures.length) {
    const first = c.failures[0]!;
    const body = c.failures.map(findingLine).join('\n');
    parts.push(`      <failure type="${first.severity}" message="${xmlText(first.message)}">${xmlText(body)}</failure>`);
  }
  if (c.other.length)
    parts.push(
      `      <system-out>${xmlText(c.other.map((f) => findingLine(f) + (f.suppressed ? ` (allowed: ${f.suppressed})` : '')).join('\n'))}</system-out>`,
    );
  parts.push('    </testcase>');
  return parts.join('\n');
}

/**
 * The JUnit document for one command: `files` are every file examined (files without findings
 * pass every rule); `rules` of the tool are the test cases of each file.
 */
export function toJUnit(tool: CiTool, findings: readonly CiFinding[], files: readonly string[]): string {
  const byFile = new Map<string, CiFinding[]>();
  for (const f of [...files].sort()) byFile.set(f, []);
  for (const f of sortFindings([...findings])) {
    const k = f.file ?? NO_FILE;
    const list = byFile.get(k);
    if (list) list.push(f);
    else byFile.set(k, [f]);
  }
  const ruleIds = tool.rules.map((r) => r.id);
  const suites: string[] = [];
  let tests = 0;
  let failures = 0;
  for (const [file, list] of [...byFile].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0))) {
    const ids = [...ruleIds, ...[...new Set(list.map((f) => f.rule))].filter((r) => !ruleIds.includes(r)).sort()];
    const cases = ids.map((rule) => {
      const mine = list.filter((f) => f.rule === rule);
      return {
        rule,
        failures: mine.filter((f) => f.severity === 'error' && !f.suppressed),
        other: mine.filter((f) => f.severity !== 'error' || f.suppressed),
      };
    });
    const failed = cases.filter((c) => c.failures.length > 0).length;
    tests += cases.length;
    failures += failed;
    suites.push(
      `  <testsuite name="${xmlText(file)}" tests="${cases.length}" failures="${failed}" errors="0" skipped="0">\n` +
        cases.map((c) => testcase(file, c)).join('\n') +
        '\n  </testsuite>',
    );
  }
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="baremetal-krm ${xmlText(tool.command)}" tests="${tests}" failures="${failures}" errors="0">`,
    ...suites,
    '</testsuites>',
    '',
  ].join('\n');
}
