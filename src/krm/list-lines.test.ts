/**
 * The input line of every item of a list is counted in one walk of the input: counted, not
 * timed. Each JSON item's line was once counted from the start of the input (countLines per
 * item), so reading 20,000 items took 11 s; LineCounter.searched grows with the characters
 * searched for line breaks, and must stay within one walk of the text.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { readInput } from './resource-list.js';
import { countLines, LineCounter } from './scan.js';

/** A ResourceList of `n` ConfigMaps as JSON (`indent` as JSON.stringify takes it). */
function jsonList(n: number, indent?: number): string {
  const items = Array.from({ length: n }, (_, i) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `c${i}` } }));
  return JSON.stringify({ apiVersion: 'config.kubernetes.io/v1', kind: 'ResourceList', items }, null, indent);
}

/** Characters LineCounter searched while `read` ran. */
function searchedBy(read: () => void): number {
  const before = LineCounter.searched;
  read();
  const searched = LineCounter.searched - before;
  expect(searched, 'lines counted by LineCounter').toBeGreaterThan(0);
  return searched;
}

describe('item lines', () => {
  it('counts the lines before ascending (or any) offsets as countLines does (property)', () => {
    const text = fc.array(fc.constantFrom('a', '\n', '\r', ' '), { maxLength: 60 }).map((cs) => cs.join(''));
    fc.assert(
      fc.property(text, fc.array(fc.nat(70), { maxLength: 12 }), (t, offsets) => {
        const lines = new LineCounter(t);
        for (const at of offsets) expect(lines.linesBefore(at)).toBe(countLines(t, at));
      }),
    );
  });

  it('reads 50,000 pretty-printed JSON items in one walk, each at its line (item i starts on line 5 + 7i by construction)', () => {
    const text = jsonList(50_000, 2);
    let items: ReturnType<typeof readInput>['items'] = [];
    const searched = searchedBy(() => {
      items = readInput(text).items;
    });
    expect(searched).toBeLessThanOrEqual(text.length);
    expect(items).toHaveLength(50_000);
    expect(items[0]!.inputLine).toBe(5);
    expect(items[49_999]!.inputLine).toBe(5 + 7 * 49_999);
  });

  it('reads 50,000 JSON items on one line without searching the line again for each (a search for an LF scans to the end)', () => {
    const text = jsonList(50_000);
    let items: ReturnType<typeof readInput>['items'] = [];
    const searched = searchedBy(() => {
      items = readInput(text).items;
    });
    expect(searched).toBeLessThanOrEqual(text.length);
    expect(items[49_999]!.inputLine).toBe(1);
  });

  it('reads a YAML list the line scanner hands to `yaml` (an anchor on items) in one walk of each text too', () => {
    const n = 2_000;
    const entries = Array.from({ length: n }, (_, i) => `- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: c${i}\n`).join('');
    const text = `apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems: &all\n${entries}`;
    let items: ReturnType<typeof readInput>['items'] = [];
    const searched = searchedBy(() => {
      items = readInput(text).items;
    });
    // the text as composed (the items' lines) and as written (their line starts and ends): once each
    expect(searched).toBeLessThanOrEqual(2 * text.length);
    expect(items).toHaveLength(n);
    expect(items[n - 1]!.inputLine).toBe(4 + 4 * (n - 1));
  });
});
