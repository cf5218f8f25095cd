/**
 * Lines in files, as a property: a generated file (metadata with or without labels and its own
 * annotations, comments and blank lines, other top-level mappings that may have an
 * `annotations:` key of their own, a `CHANGEME` somewhere) is handed over as kpt hands it (its
 * path and index annotations added at the end of metadata's annotations, the `annotations:` key
 * too when the file had none), and intent-validate's template-leftover finding names the line of
 * the `CHANGEME` in the file, not in what kpt sent.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { runFunction } from '../../src/krm/index.js';
import { definition } from './function.js';

interface FileShape {
  labels: boolean;
  own: string[];
  comment: boolean;
  blank: boolean;
  specAnnotations: boolean;
  extra: number;
  leftoverAt: number;
}

/** The file's lines, and the line (1-based) of the CHANGEME in it. */
function fileOf(f: FileShape): { lines: string[]; want: number } {
  const lines = ['apiVersion: example.com/v1', 'kind: Widget', 'metadata:', '  name: w'];
  if (f.comment) lines.push('  # the widget');
  if (f.labels) lines.push('  labels:', '    app: w');
  if (f.own.length) lines.push('  annotations:', ...f.own.map((k, i) => `    ${k}: "v${i}"`));
  if (f.blank) lines.push('');
  lines.push('spec:');
  if (f.specAnnotations) lines.push('  annotations:', '    own: x');
  const values = Array.from({ length: f.extra }, (_, i) => `  k${i}: v${i}`);
  values.splice(Math.min(f.leftoverAt, values.length), 0, '  image: CHANGEME');
  lines.push(...values);
  return { lines, want: lines.indexOf('  image: CHANGEME') + 1 };
}

/** The lines as kpt sends them: its annotations at the end of metadata's (the key added when missing). */
function asKptSends(lines: string[], hasOwn: boolean): string[] {
  const kpt = [
    "config.kubernetes.io/index: '0'",
    "config.kubernetes.io/path: 'w.yaml'",
    "internal.config.kubernetes.io/path: 'w.yaml'",
  ].map((l) => `    ${l}`);
  // metadata's last line: the line before the next top-level key (blank lines and comments stay after it)
  const spec = lines.indexOf('spec:');
  let end = spec;
  while (end > 0 && (lines[end - 1] === '' || lines[end - 1]!.startsWith('  #'))) end--;
  if (hasOwn) {
    // after the last own annotation
    let last = lines.indexOf('  annotations:') + 1;
    while (lines[last]?.startsWith('    ')) last++;
    return [...lines.slice(0, last), ...kpt, ...lines.slice(last)];
  }
  return [...lines.slice(0, end), '  annotations:', ...kpt, ...lines.slice(end)];
}

describe('lines in files, generated', () => {
  it("the finding's line is its line in the file, whatever kpt added (property)", async () => {
    const shape = fc.record({
      labels: fc.boolean(),
      own: fc.subarray(['team', 'example.com/owner', 'note']),
      comment: fc.boolean(),
      blank: fc.boolean(),
      specAnnotations: fc.boolean(),
      extra: fc.integer({ min: 0, max: 4 }),
      leftoverAt: fc.integer({ min: 0, max: 4 }),
    });
    await fc.assert(
      fc.asyncProperty(shape, async (f) => {
        const { lines, want } = fileOf(f);
        const sent = asKptSends(lines, f.own.length > 0);
        const input = `apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n${sent.map((l, i) => (i === 0 ? `- ${l}` : l === '' ? '' : `  ${l}`)).join('\n')}\n`;
        const r = await runFunction(definition, input);
        const got = r.results.filter((x) => x.tags?.rule === 'template-leftover').map((x) => [x.file?.path, x.tags?.line]);
        expect(got, sent.join('\n')).toEqual([['w.yaml', String(want)]]);
      }),
      { numRuns: 150 },
    );
  });
});
