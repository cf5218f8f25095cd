import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type CiFinding, sortFindings } from './ci-finding.js';

/** The order as it was first written: one NUL-joined key per finding, compared by code units. */
function byJoinedKey(list: CiFinding[]): CiFinding[] {
  const key = (f: CiFinding): string =>
    `${f.file ?? ''}\u0000${String(f.line ?? 0).padStart(9, '0')}\u0000${f.rule}\u0000${f.resource ?? ''}\u0000${f.message}`;
  return [...list].sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));
}

describe('sortFindings', () => {
  it('orders as the joined keys file, line, rule, resource, message do (property)', () => {
    // few letters (and NUL) so that fields tie, share prefixes and hold the separator
    const text = fc.string({ unit: fc.constantFrom('a', 'b', '/', '\u0000', 'é'), maxLength: 4 });
    const path = fc.string({ unit: fc.constantFrom('a', 'b', '/', 'é'), maxLength: 4 }); // a path never holds NUL
    const finding = fc.record(
      {
        file: path,
        line: fc.nat({ max: 12 }),
        rule: fc.constantFrom('reference', 'duplicate', 'input'),
        severity: fc.constantFrom('error', 'warning', 'info'),
        resource: text,
        message: text,
      },
      { requiredKeys: ['rule', 'severity', 'message'] },
    ) as fc.Arbitrary<CiFinding>;
    fc.assert(
      fc.property(fc.array(finding, { maxLength: 12 }), (list) => {
        expect(sortFindings(list)).toEqual(byJoinedKey(list));
      }),
      { numRuns: Number(process.env.FC_RUNS ?? 500) },
    );
  });
});
