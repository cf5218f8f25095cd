/** Shared helpers for benchmarks: timing, start time of a bundle, peak memory of a child. */
import { spawnSync } from 'node:child_process';

export function timeIt(fn: () => unknown, minRuns = 3, minMs = 300): number {
  const times: number[] = [];
  const start = performance.now();
  while (times.length < minRuns || performance.now() - start < minMs) {
    const t = performance.now();
    fn();
    times.push(performance.now() - t);
    if (times.length > 50) break;
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)]!;
}

export async function timeAsync(fn: () => Promise<unknown>, minRuns = 3, minMs = 300): Promise<number> {
  const times: number[] = [];
  const start = performance.now();
  while (times.length < minRuns || performance.now() - start < minMs) {
    const t = performance.now();
    await fn();
    times.push(performance.now() - t);
    if (times.length > 50) break;
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)]!;
}

/**
 * Median wall times (ms) of several `node <args>` commands fed `input`, run interleaved (one of
 * each per round) so that background load hits them all alike.
 */
export function startTimes(commands: Record<string, string[]>, input: string, env: NodeJS.ProcessEnv, rounds = 21): Record<string, number> {
  const stats = startTimeStats(commands, input, env, rounds);
  return Object.fromEntries(Object.entries(stats).map(([k, s]) => [k, s.median]));
}

/** Like startTimes, with the fastest run too (on a loaded machine the least disturbed one). */
export function startTimeStats(
  commands: Record<string, string[]>,
  input: string,
  env: NodeJS.ProcessEnv,
  rounds = 21,
): Record<string, { median: number; min: number }> {
  const times: Record<string, number[]> = Object.fromEntries(Object.keys(commands).map((k) => [k, []]));
  for (let i = 0; i < rounds; i++) {
    for (const [k, args] of Object.entries(commands)) {
      const t = performance.now();
      const r = spawnSync(process.execPath, args, { input, env, encoding: 'utf8' });
      times[k]!.push(performance.now() - t);
      if (r.status !== 0 && r.status !== 1) throw new Error(`node ${args.join(' ')} failed: ${r.stderr}`);
    }
  }
  return Object.fromEntries(
    Object.entries(times).map(([k, ts]) => {
      ts.sort((a, b) => a - b);
      return [k, { median: ts[Math.floor(ts.length / 2)]!, min: ts[0]! }];
    }),
  );
}

/** Median wall time (ms) of running `node <args>` with `input` on stdin. */
export function startTime(args: string[], input: string, env: NodeJS.ProcessEnv, runs = 15): number {
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t = performance.now();
    const r = spawnSync(process.execPath, args, { input, env, encoding: 'utf8' });
    times.push(performance.now() - t);
    if (r.status !== 0 && r.status !== 1) throw new Error(`node ${args.join(' ')} failed: ${r.stderr}`);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)]!;
}

export function envWithout(...names: string[]): NodeJS.ProcessEnv {
  const env = { ...process.env };
  for (const n of names) delete env[n];
  return env;
}

/** Peak RSS (MiB) of `node <args>` fed `input`, from GNU time. */
export function peakRssMiB(args: string[], input: string, env: NodeJS.ProcessEnv = process.env): number | undefined {
  const r = spawnSync('/usr/bin/time', ['-f', '%M', process.execPath, ...args], { input, env, encoding: 'utf8', maxBuffer: 1 << 30 });
  const m = /(\d+)\s*$/.exec(r.stderr ?? '');
  return m ? Number(m[1]) / 1024 : undefined;
}

export const fmt = (n: number, digits = 0): string =>
  n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });
