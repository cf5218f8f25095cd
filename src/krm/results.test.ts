import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formatLine } from './results.js';

describe('one finding, one line', () => {
  it('a name with a newline cannot forge another line (a workflow command, a second finding)', () => {
    const line = formatLine({
      file: 'a\nb.yaml',
      line: 3,
      severity: 'error',
      message: 'ConfigMap/evil\n::error file=README.md,line=1::x',
      rule: 'r',
    });
    expect(line).toBe('a\\nb.yaml:3: error: ConfigMap/evil\\n::error file=README.md,line=1::x [r]');
  });

  it('property: whatever the file and message hold, the line holds no line break or control character but tab', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), fc.string({ unit: 'binary' }), (file, message) => {
        const line = formatLine({ file: file || undefined, line: 1, severity: 'error', message });
        expect(line).not.toMatch(/[\u0000-\u0008\u000a-\u001f\u007f\u0085\u2028\u2029]/);
      }),
      { numRuns: 500 },
    );
  });
});
