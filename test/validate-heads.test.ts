/**
 * The analysis reads an item's identity (kind, group, name, namespace, labels, annotations) from
 * the object's own header when that says what the item's tree says, so that it is not kept twice
 * (src/validate/context.ts analysisHead). Differential: on every item of airshipctl's manifests,
 * the examples and the intent-validate golden inputs, the head the rules see equals the tree's.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readYamlFiles } from '../src/cli/files.js';
import { expandPaths } from '../src/cli/validate.js';
import { analysisHead, headOf, readTree } from '../src/validate/context.js';
import { fleetMixStream } from './fleet-mix.js';
import { repoRoot } from './golden.js';
import { readInput } from '../src/krm/index.js';

const folders = [
  join(repoRoot, '../shared/fixtures/airship'),
  join(repoRoot, 'examples'),
  join(repoRoot, 'functions/intent-validate/testdata'),
].filter((f) => existsSync(f));

describe('the head the analysis sees', () => {
  it("is the tree's head, read from the object where they agree (differential)", () => {
    const objects = [...readYamlFiles(expandPaths(folders)).files.flatMap((f) => f.objects), ...readInput(fleetMixStream(200)).items];
    let shared = 0;
    let compared = 0;
    for (const o of objects) {
      const { tree } = readTree(o);
      if (!tree) continue;
      const { head, shared: isShared } = analysisHead(o, tree);
      expect(head, o.where).toEqual(headOf(o, tree));
      compared++;
      if (isShared) shared++;
    }
    expect(compared).toBeGreaterThan(800);
    // the point of it: almost every item's head is the object's, not a second copy
    expect(shared / compared).toBeGreaterThan(0.9);
  });
});
