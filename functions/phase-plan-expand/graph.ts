/** The step graph of a plan: what a step (transitively) depends on, what depends on it, and its Flux dependencies. */
import type { Step } from './steps.js';

/** Steps step `i` (transitively) depends on. */
export function dependencySet(steps: Step[], i: number): Set<number> {
  const out = new Set<number>();
  const stack = [i];
  while (stack.length > 0)
    for (const d of steps[stack.pop()!]!.deps)
      if (!out.has(d)) {
        out.add(d);
        stack.push(d);
      }
  return out;
}

/** Steps that (transitively) depend on step `i`: one walk, linear in the graph. */
export function descendants(steps: Step[], i: number): Set<number> {
  return descendantsOf(steps, [i]);
}

/** Steps that (transitively) depend on any of `sources`: one walk, linear in the graph. */
export function descendantsOf(steps: Step[], sources: number[]): Set<number> {
  const users: number[][] = steps.map(() => []);
  steps.forEach((st, j) => st.deps.forEach((d) => users[d]!.push(j)));
  const out = new Set<number>();
  const stack = [...sources];
  while (stack.length > 0) {
    for (const u of users[stack.pop()!]!)
      if (!out.has(u)) {
        out.add(u);
        stack.push(u);
      }
  }
  return out;
}

/**
 * The Flux dependencies of a step: its dependencies that are Kustomizations (steps and Job gates)
 * applied by the same Flux, with explicit gates replaced by their own dependencies (transitively).
 * Kustomizations of another Flux (before a hand-over) cannot be named in `dependsOn`: they come
 * back in `otherFlux`.
 */
export function fluxDeps(steps: Step[], st: Step): { deps: Step[]; gates: Step[]; otherFlux: Step[] } {
  const deps = new Set<Step>();
  const gates = new Set<Step>();
  const otherFlux = new Set<Step>();
  const seen = new Set<number>();
  const walk = (i: number) => {
    if (seen.has(i)) return;
    seen.add(i);
    const d = steps[i]!;
    if ((d.flux || d.job) && d.fluxCluster === st.fluxCluster) deps.add(d);
    else if (d.flux || d.job) otherFlux.add(d);
    else {
      gates.add(d);
      d.deps.forEach(walk);
    }
  };
  st.deps.forEach(walk);
  const bynum = (a: Step, c: Step) => a.num - c.num;
  return { deps: [...deps].sort(bynum), gates: [...gates].sort(bynum), otherFlux: [...otherFlux].sort(bynum) };
}
