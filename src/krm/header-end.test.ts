/**
 * `headerEnd` (where an item's apiVersion, kind and metadata end, for the fast header read)
 * equals its line-by-line definition for generated items: lines at, above and below the
 * item's column, comments, blank lines, CRLF, keys that are not plain, header keys after
 * other keys. It visits only the lines at the item's column or less; the definition looks at
 * every line.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { headerEnd } from './scan.js';

/** The definition: every line looked at, top-level ones (at `col`) checked as keys. */
function headerEndByLines(raw: string, col: number): number | undefined {
  let end = -1;
  let pos = 0;
  for (let first = true; pos < raw.length; first = false) {
    const nl = raw.indexOf('\n', pos);
    const stop = nl < 0 ? raw.length : nl;
    const line = raw.slice(pos, stop);
    let top: boolean;
    if (first && col > 0) {
      if (!line.startsWith('- ', col - 2) || line[col] === ' ') return undefined;
      top = true;
    } else if (/^[ \t\r]*(?:#|$)/.test(line)) top = false;
    else {
      const ind = /^ */.exec(line)![0].length;
      if (ind < col) return undefined;
      top = ind === col;
    }
    if (top) {
      const key = /^([A-Za-z_][A-Za-z0-9_./-]*):(?:[ \r]|$)/.exec(line.slice(col, col + 64));
      if (!key) return undefined;
      const header = ['apiVersion', 'kind', 'metadata'].includes(key[1]!);
      if (header && end >= 0) return undefined;
      if (!header && end < 0) end = pos;
    }
    pos = stop + 1;
  }
  return end < 0 ? raw.length : end;
}

describe('headerEnd', () => {
  it('equals the line-by-line definition (property)', () => {
    const content = fc.constantFrom(
      'apiVersion: v1',
      'kind: ConfigMap',
      'metadata:',
      'name: a',
      'spec:',
      'data: |',
      'x',
      '- y',
      '# c',
      '',
      '\t',
      '\r',
      'kind : x',
      '"kind": x',
      'kind:x',
      `${'k'.repeat(70)}: v`,
      `${'k'.repeat(63)}: v`, // the colon at the 64-character window's edge
      `${'k'.repeat(62)}: v`,
      'a1.b/c-d_e: x',
      '_x: y',
      '1a: x',
      '.a: x',
      'kindx: y',
      'kin: y',
      'apiVersions: v1',
      'metadata:\tx',
      'kind:',
    );
    const line = fc.tuple(fc.integer({ min: 0, max: 7 }), content).map(([ind, c]) => ' '.repeat(ind) + c);
    const item = fc
      .tuple(
        fc.constantFrom(undefined, 0, 2), // a document, or an entry at that sequence indentation
        content,
        fc.array(line, { maxLength: 10 }),
        fc.constantFrom('\n', '\r\n'),
        fc.boolean(),
      )
      .map(([seqIndent, first, lines, br, endBreak]) => {
        const col = seqIndent === undefined ? 0 : seqIndent + 2;
        const head = seqIndent === undefined ? first : ' '.repeat(seqIndent) + '- ' + first;
        return { col, raw: [head, ...lines].join(br) + (endBreak ? br : '') };
      });
    fc.assert(
      fc.property(item, ({ raw, col }) => {
        expect(headerEnd(raw, col)).toBe(headerEndByLines(raw, col));
      }),
      { numRuns: 3000 },
    );
  });
});
