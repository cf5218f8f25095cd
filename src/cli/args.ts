/**
 * Command-line arguments for every `baremetal-krm` command, with `node:util` parseArgs:
 * `--key value`, `--key=value`, flags, `-h`/`--help`, `--` before positionals. Usage errors
 * are UsageError (commands exit 2 on them) with short messages.
 */
import { parseArgs, type ParseArgsConfig } from 'node:util';

export class UsageError extends Error {}

export interface CommandArgs {
  /** the value of a string option given once (twice with two values is a usage error) */
  one(name: string): string | undefined;
  /** every value of a string option, in order (options may repeat) */
  all(name: string): string[];
  /** the items of a comma-separated option, every time it was given, trimmed; given but empty (`--fail-on ""`) is a usage error */
  list(name: string): string[];
  /** whether a string option was given */
  has(name: string): boolean;
  flag(name: string): boolean;
  positional: string[];
}

function usageMessage(e: NodeJS.ErrnoException): string {
  const opt = /'(--?[^' ]+)/.exec(e.message)?.[1] ?? '';
  switch (e.code) {
    case 'ERR_PARSE_ARGS_UNKNOWN_OPTION':
      return `unknown option ${opt}`;
    case 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE':
      if (/does not take an argument/.test(e.message)) return `${opt} takes no value`;
      // `--max-rows -1`: the value looks like an option
      if (/ambiguous/.test(e.message)) return `${opt} needs a value (one that starts with -: write ${opt}=VALUE)`;
      return `${opt} needs a value`;
    default:
      return e.message.split('. ')[0]!;
  }
}

/** Parses `argv`: `strings` are options with a value, `flags` options without; `--help`/`-h` is always a flag. */
export function parseCommandArgs(argv: string[], strings: readonly string[], flags: readonly string[]): CommandArgs {
  const options: NonNullable<ParseArgsConfig['options']> = { help: { type: 'boolean', short: 'h' } };
  for (const s of strings) options[s] = { type: 'string', multiple: true };
  for (const f of flags) options[f] = { type: 'boolean' };
  let parsed: { values: Record<string, unknown>; positionals: string[] };
  try {
    parsed = parseArgs({ args: argv, options, allowPositionals: true, strict: true });
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code?.startsWith('ERR_PARSE_ARGS')) throw new UsageError(usageMessage(e as NodeJS.ErrnoException));
    throw e;
  }
  const values = parsed.values;
  // an empty value is a mistake, never a choice: `--fail-on "$FAIL_ON"` with the variable unset
  // would turn a gate off, `--output ""` write to stdout
  for (const name of strings)
    for (const v of (values[name] as string[] | undefined) ?? [])
      if (v.trim() === '') throw new UsageError(`--${name} is empty: give it a value (is a variable that should fill it unset?)`);
  return {
    one: (name) => {
      const given = values[name] as string[] | undefined;
      if (given?.some((v) => v !== given[0]))
        throw new UsageError(`--${name} is given ${given.length} times (${given.join(', ')}): give it once`);
      return given?.[0];
    },
    list: (name) => {
      const given = (values[name] as string[] | undefined) ?? [];
      const items = given
        .flatMap((v) => v.split(','))
        .map((v) => v.trim())
        .filter((v) => v !== '');
      if (given.length > 0 && items.length === 0)
        throw new UsageError(`--${name} ${given.join(' ')}: give at least one item (comma-separated)`);
      return items;
    },
    all: (name) => (values[name] as string[] | undefined) ?? [],
    has: (name) => values[name] !== undefined,
    flag: (name) => values[name] === true,
    positional: parsed.positionals,
  };
}
