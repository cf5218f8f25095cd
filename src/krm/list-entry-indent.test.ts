/**
 * `indentItem` writes a document as an entry of a block sequence exactly as the line-by-line
 * definition does (first line after `- `, every other line indented past it, empty lines left
 * empty, a last line without newline given one; an LF or a bare CR ends a line), for generated
 * documents of any lines; `dedentItem` takes an entry back to a document as the line-by-line
 * definition (dedentLines) does, whatever its line ends and leading white space.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { dedentItem, dedentLines, indentItem } from './scan.js';

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

describe('dedentItem', () => {
  it('equals the line-by-line definition (property)', () => {
    // lines indented more, as much as and less than the entry, blank ones, comments, tabs and
    // white space that is not a space (trimStart drops it from a line indented less)
    const line = fc.oneof(
      fc.constantFrom(
        '',
        ' ',
        '  ',
        '   ',
        '    x: 1',
        '  - y',
        '- a: b',
        ' #c',
        ' \t#c',
        '\t',
        '\r',
        '  \r',
        '\u00a0z',
        ' \u2028',
        '\ufeff',
      ),
      fc.string({ maxLength: 6 }),
    );
    const breaks = fc.constantFrom('\n', '\n', '\r\n', '\r');
    const entry = fc
      .tuple(fc.array(fc.tuple(line, breaks), { maxLength: 8 }), line)
      .map(([ls, last]) => ls.map(([l, b]) => l + b).join('') + last);
    fc.assert(
      fc.property(entry, fc.integer({ min: 0, max: 4 }), (raw, seqIndent) => {
        expect(dedentItem(raw, seqIndent)).toBe(dedentLines(raw, seqIndent + 2));
      }),
      { numRuns: 3000 },
    );
  });
});
