/**
 * The cost of the redaction every output goes through (src/secrets): on intent-validate's
 * fleet mix (test/fleet-mix.ts, 20,000 objects), a whole in-process run next to the redaction
 * step at its worst (credentials collected from the environment and from every item, every
 * result scrubbed; the runtime reads only the items results name), and scrubbing a report-sized text.
 * CPU time (process.cpuUsage), median of 5: the machine is shared, wall time says little.
 */
import { readInput, runFunction } from '../src/krm/index.js';
import { Redactor } from '../src/secrets/redact.js';
import { definition } from '../functions/intent-validate/function.js';
import { resourceList } from '../test/golden.js';
import { fleetMix } from '../test/fleet-mix.js';

async function cpuMs(fn: () => unknown, runs = 5): Promise<{ min: number; median: number }> {
  const t: number[] = [];
  for (let i = 0; i < runs; i++) {
    const c = process.cpuUsage();
    await fn();
    const u = process.cpuUsage(c);
    t.push((u.user + u.system) / 1000);
  }
  t.sort((a, b) => a - b);
  return { min: t[0]!, median: t[Math.floor(t.length / 2)]! };
}

export async function run(): Promise<void> {
  const input = resourceList(fleetMix(20_000));
  const whole = await cpuMs(() => runFunction(definition, input));
  const { results } = await runFunction(definition, input);
  const items = readInput(input).items;
  for (const o of items) void o.data; // parsed once, as after a run
  const redaction = await cpuMs(() => {
    const r = new Redactor().addEnv(process.env);
    for (const o of items) r.addData(o.data);
    r.scrubResults(results.map((x) => ({ ...x, tags: x.tags ? { ...x.tags } : undefined })));
  });
  const redactor = new Redactor().addEnv(process.env);
  for (const o of items) redactor.addData(o.data);
  const text = `${results.map((r) => r.message).join('\n')}\n`.repeat(200);
  const scrub = await cpuMs(() => redactor.scrubKnown(text));
  const pct = (a: number, b: number): string => `${((100 * a) / b).toFixed(1)} %`;
  console.log("redaction on intent-validate's fleet mix (20,000 objects), in process, CPU ms (min / median of 5)");
  console.log(`  whole run: ${whole.min.toFixed(0)} / ${whole.median.toFixed(0)} ms, ${results.length} results`);
  console.log(
    `  redaction step, worst case (credentials of all 20,000 items collected, every result scrubbed): ${redaction.min.toFixed(0)} / ${redaction.median.toFixed(0)} ms = ${pct(redaction.min, whole.min)} / ${pct(redaction.median, whole.median)} of the run`,
  );
  console.log(
    `  scrubbing ${(text.length / 1e6).toFixed(1)} MB of text (report-sized) against them: ${scrub.min.toFixed(0)} / ${scrub.median.toFixed(0)} ms`,
  );
}
