/**
 * The secrets harness: plants a canary per input channel (channels.ts), runs every output
 * (runs.ts, and the e2e runs), and scans every output for every canary in every form
 * (canary.ts). A hit names channel -> output.
 */
import { stringify } from 'yaml';
import { findForms, inputsOf, newText, type Inputs } from './canary.js';
import type { Channel, Fixture } from './channels.js';
import { phasePlanDocs, plantedCanaries, siteDocs, type Planted } from './fixture.js';
import { buildFixture, functionConfig } from './fixture.js';
import { FUNCTION_RUNS, startWorld, type Output, type Run } from './runs.js';

export interface Hit {
  channel: string;
  output: string;
  forms: string[];
}

/** Every text the runs were given: what a canary must be found in (the scanner sees it) and what items may pass through. */
export function inputTexts(fixtures: readonly Fixture[], configs: readonly string[] = []): string[] {
  return fixtures.flatMap((f) => [
    ...siteDocs(f),
    ...phasePlanDocs(f),
    stringify(f.env),
    ...Object.values(f.files),
    stringify(f.bmcs),
    stringify(f.extraBmcEntries),
    ...configs,
  ]);
}

/** The hits of every planted canary in every output. */
export function scan(outputs: readonly Output[], planted: readonly Planted[], inputs: Inputs): Hit[] {
  const hits: Hit[] = [];
  for (const o of outputs) {
    const text = o.items ? newText(o.text, inputs) : o.text;
    for (const p of planted) {
      const forms = [...new Set(p.values.flatMap((v) => findForms(text, v)))];
      if (forms.length) hits.push({ channel: p.channel.id, output: o.name, forms });
    }
  }
  return hits;
}

export function describeHits(hits: readonly Hit[]): string[] {
  return hits.map((h) => `${h.channel} -> ${h.output} (${h.forms.join(', ')})`);
}

/** Canaries of `channels`, with the inputs index built from the fixtures. */
export function prepare(channels: readonly Channel[], fixtures: readonly Fixture[], configs: readonly string[] = []) {
  const texts = inputTexts(fixtures, configs);
  return { planted: plantedCanaries(channels), inputs: inputsOf(texts.filter((t) => t.trim() !== '')), texts };
}

/** Plants every channel, runs `runs` in process, scans: the outputs, their hits and the input texts. */
export async function runHarness(
  channels: readonly Channel[],
  runs: readonly Run[],
): Promise<{ outputs: Output[]; hits: Hit[]; texts: string[] }> {
  const fixture = buildFixture(channels);
  const other = buildFixture(channels, 'B');
  const world = await startWorld(fixture, other);
  try {
    const outputs: Output[] = [];
    for (const r of runs) outputs.push(...(await r.run(world)));
    const configs = FUNCTION_RUNS.map((f) => functionConfig(fixture, f.kind, f.spec(world), world.files));
    const { planted, inputs, texts } = prepare(channels, [fixture, other], configs);
    return { outputs, hits: scan(outputs, planted, inputs), texts };
  } finally {
    await world.close();
  }
}
