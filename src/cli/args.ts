/** A tiny argument parser: `--flag`, `--key value`, `--key=value` and positionals. */
export interface Parsed {
  flags: Set<string>;
  options: Map<string, string>;
  positional: string[];
}

export function parseArgs(argv: string[], withValue: readonly string[]): Parsed {
  const flags = new Set<string>();
  const options = new Map<string, string>();
  const positional: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--') {
      positional.push(...argv.slice(i + 1));
      break;
    }
    if (a.startsWith('--')) {
      const eq = a.indexOf('=');
      const name = eq > 0 ? a.slice(2, eq) : a.slice(2);
      if (withValue.includes(name)) {
        const v = eq > 0 ? a.slice(eq + 1) : argv[++i];
        if (v === undefined) throw new Error(`--${name} needs a value`);
        options.set(name, v);
      } else flags.add(name);
    } else if (a === '-h') flags.add('help');
    else positional.push(a);
  }
  return { flags, options, positional };
}
