/** Kubernetes resource quantities: CPU in cores, memory in MiB. */
const BIN: Record<string, number> = { Ki: 2 ** 10, Mi: 2 ** 20, Gi: 2 ** 30, Ti: 2 ** 40, Pi: 2 ** 50, Ei: 2 ** 60 };
const DEC: Record<string, number> = { n: 1e-9, u: 1e-6, m: 1e-3, '': 1, k: 1e3, K: 1e3, M: 1e6, G: 1e9, T: 1e12, P: 1e15, E: 1e18 };

/** A quantity in base units (bytes, cores), or undefined when it does not parse. */
function parseQuantity(v: unknown): number | undefined {
  if (typeof v === 'number') return v;
  if (typeof v !== 'string') return undefined;
  const m = /^([+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)(Ki|Mi|Gi|Ti|Pi|Ei|n|u|m|k|K|M|G|T|P|E)?$/.exec(v.trim());
  if (!m) return undefined;
  const n = Number(m[1]);
  const suffix = m[2] ?? '';
  return n * (BIN[suffix] ?? DEC[suffix] ?? 1);
}

export function parseCpu(v: unknown): number | undefined {
  return parseQuantity(v);
}

export function parseMemoryMiB(v: unknown): number | undefined {
  const b = parseQuantity(v);
  return b === undefined ? undefined : b / 2 ** 20;
}
