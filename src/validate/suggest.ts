/** "did you mean" for names: the closest known name within two edits. */

/** ` (did you mean x?)`, or '' when no known name is close. */
export function closest(n: string, names: Iterable<string>): string {
  let best: string | undefined;
  let bestD = 3;
  for (const c of names) {
    const d = distance(n, c);
    if (d < bestD) {
      bestD = d;
      best = c;
    }
  }
  return best ? ` (did you mean ${best}?)` : '';
}

/** Levenshtein distance; 99 when the lengths differ by more than 3 (never close). */
function distance(a: string, b: string): number {
  if (Math.abs(a.length - b.length) > 3) return 99;
  const dp = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let prev = dp[0]!;
    dp[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const tmp = dp[j]!;
      dp[j] = Math.min(dp[j]! + 1, dp[j - 1]! + 1, prev + (a[i - 1] === b[j - 1] ? 0 : 1));
      prev = tmp;
    }
  }
  return dp[b.length]!;
}
