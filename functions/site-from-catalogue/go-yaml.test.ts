/** goyaml.ts writes what Go yaml.v2 (sprig toYaml, airshipctl's template) writes. */
import { describe, expect, it } from 'vitest';
import { goKeyOrder, goScalar, toYaml } from './goyaml.js';

describe('goyaml writes what Go yaml.v2 (sprig toYaml) writes', () => {
  it('scalar styles: double quotes for texts that resolve to another type, single quotes where plain is not allowed', () => {
    const cases: [string, string][] = [
      ['::', "'::'"],
      ['fd00:23:25::', "'fd00:23:25::'"],
      ['fd00::1', 'fd00::1'],
      ['::/0', '::/0'],
      ['<<', '"<<"'],
      ['0o17', '"0o17"'],
      ['0x1F', '"0x1F"'],
      ['09', '"09"'],
      ['1_000', '"1_000"'],
      ['1e3', '"1e3"'],
      ['.5', '".5"'],
      ['1:20', '"1:20"'],
      ['52:54:00:12:34:56', '"52:54:00:12:34:56"'],
      ['52:54:00:ab:cd:ef', '52:54:00:ab:cd:ef'],
      ['2001-12-14', '"2001-12-14"'],
      ['yes', '"yes"'],
      ['n', '"n"'],
      ['~', '"~"'],
      ['', '""'],
      ['NaN', 'NaN'],
      ['- a', "'- a'"],
      ['a: b', "'a: b'"],
      ['a #b', "'a #b'"],
      ['#x', "'#x'"],
      ['*.example.com', "'*.example.com'"],
      [' x', "' x'"],
      ["it's", "it's"],
      ['-x', '-x'],
      ['?x', '?x'],
      ['a\tb', '"a\\tb"'],
      ['été', 'été'],
    ];
    for (const [s, want] of cases) expect(goScalar(s), JSON.stringify(s)).toBe(want);
  });
  it('multi-line texts are literal blocks (|-, |, indentation hint), keys in yaml.v2 order', () => {
    expect(toYaml({ k: 'line1\nline2', l: ['a\n\nb\n', 'x'], m: { n: ' lead\nx' } })).toBe(
      'k: |-\n  line1\n  line2\nl:\n- |\n  a\n\n  b\n- x\nm:\n  "n": |2-\n     lead\n    x',
    );
    expect(goKeyOrder(['b10', 'b9', 'aB', 'a_b', 'a-b', 'Z', '_x', '10', '2'])).toEqual([
      '_x',
      '2',
      '10',
      'Z',
      'a-b',
      'a_b',
      'aB',
      'b9',
      'b10',
    ]);
    expect(toYaml({ f: 0.00001, g: 1234567.5, h: 2.5, i: 7 })).toBe('f: 1e-05\ng: 1.2345675e+06\nh: 2.5\ni: 7');
  });
});
