/**
 * `indentItem` writes a document as an entry of a block sequence exactly as the line-by-line
 * definition does (first line after `- `, every other line indented past it, empty lines left
 * empty, a last line without newline given one; an LF or a bare CR ends a line), for generated
 * documents of any lines.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { dedentItem, indentItem } from './scan.js';

/** Lines with their breaks: an LF ends a line, a bare CR (old Mac) too; a last line without a break is given an LF. */
function byLines(body: string, seqIndent: number): string {
  if (body === '') return ' '.repeat(seqIndent) + '-\n';
  const lines = body.match(/[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+$/g)!;
  return lines
    .map((l, i) => {
      const line = /[\r\n]$/.test(l) ? l : l + '\n';
      return i === 0 ? ' '.repeat(seqIndent) + '- ' + line : line === '\n' ? line : ' '.repeat(seqIndent + 2) + line;
    })
    .join('');
}

describe('indentItem', () => {
  it('equals the line-by-line definition (property)', () => {
    const line = fc.oneof(fc.constantFrom('', ' ', '\r', 'a: b', '  - x', '#c', '\t'), fc.string({ maxLength: 8 }));
    const body = fc.tuple(fc.array(line, { maxLength: 8 }), fc.boolean()).map(([ls, nl]) => ls.join('\n') + (nl ? '\n' : ''));
    fc.assert(
      fc.property(body, fc.integer({ min: 0, max: 4 }), (b, k) => {
        expect(indentItem(b, k)).toBe(byLines(b, k));
      }),
      { numRuns: 1000 },
    );
  });

  it('is undone by dedentItem for a mapping', () => {
    const doc = 'apiVersion: v1\nkind: ConfigMap\ndata:\n  a: |\n    x\n\n    y\n';
    for (const k of [0, 2]) expect(dedentItem(indentItem(doc, k), k)).toBe(doc);
  });
});
