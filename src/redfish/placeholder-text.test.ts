/** Firmware placeholders are absent everywhere; real values, from every fixture tree, are kept. */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../../test/golden.js';
import { hostNameText, isPlaceholder, text, uuidText } from './text.js';

const PLACEHOLDERS = [
  'N/A',
  'NA',
  'Not Specified',
  'Not Available',
  'To Be Filled By O.E.M.',
  'To be filled by O.E.M.',
  'Default string',
  'System Serial Number',
  'Chassis Serial Number',
  'Unknown',
  'None',
  '..........',
  '...',
  '--------',
  '00000000',
  '0',
  'XXXXXXXXXX',
  'FFFFFFFFFFFF',
  '0123456789',
];

describe('placeholders are absent', () => {
  it.each(PLACEHOLDERS)('%s, in any case and padding', (p) => {
    for (const v of [p, p.toLowerCase(), p.toUpperCase(), `  ${p} `, p.replace(/ /g, '  ')]) {
      expect(text(v), JSON.stringify(v)).toBeUndefined();
      expect(isPlaceholder(v)).toBe(true);
    }
  });
  it('UUIDs that are all zeros or all F, host names every unconfigured OS has', () => {
    expect(uuidText('00000000-0000-0000-0000-000000000000')).toBeUndefined();
    expect(uuidText('FFFFFFFF-FFFF-FFFF-FFFF-FFFFFFFFFFFF')).toBeUndefined();
    expect(uuidText('00000000-0000-0000-0000-7CC25550A8FF')).toBe('00000000-0000-0000-0000-7cc25550a8ff');
    expect(hostNameText('localhost')).toBeUndefined();
    expect(hostNameText('localhost.localdomain')).toBeUndefined();
    expect(hostNameText('web483')).toBe('web483');
  });
});

describe('real values are kept', () => {
  // every identity, model and serial string of every fixture tree: none is taken for a placeholder
  const FIELDS = new Set(['SerialNumber', 'Model', 'Manufacturer', 'SKU', 'HostName', 'PartNumber', 'BiosVersion', 'Name']);
  const values = new Set<string>();
  const walk = (dir: string) => {
    for (const e of readdirSync(dir)) {
      const p = join(dir, e);
      if (statSync(p).isDirectory()) walk(p);
      else if (e === 'index.json') collect(JSON.parse(readFileSync(p, 'utf8')));
    }
  };
  const collect = (v: unknown): void => {
    if (Array.isArray(v)) v.forEach(collect);
    else if (v && typeof v === 'object')
      for (const [k, x] of Object.entries(v)) {
        if (FIELDS.has(k) && typeof x === 'string' && x.trim()) values.add(x);
        collect(x);
      }
  };
  walk(join(repoRoot, '../shared/fixtures/redfish'));
  it(`of the ${values.size} serials, models, names and versions of the fixture trees, only a real placeholder is one`, () => {
    expect(values.size).toBeGreaterThan(300);
    // HPE's absent DIMMs have PartNumber "Unknown"
    expect([...values].filter(isPlaceholder)).toEqual(['Unknown']);
  });
});
