/**
 * A command's `--output FILE`: never one of the command's inputs, nor inside an input folder (a
 * report written over the manifest it read loses the manifest; one written into a site folder is
 * read as part of the site next time), and written whole or not at all: a temporary file beside
 * it, renamed over it, so a reader (or a failed run) never leaves half a file.
 */
import { existsSync, realpathSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { isInside, lstatIfPresent } from '../krm/index.js';

export class OutputError extends Error {}

/** The path with its folder's symbolic links resolved (the file itself need not exist). */
function real(path: string): string {
  const abs = resolve(path);
  try {
    return realpathSync(abs);
  } catch {
    try {
      return join(realpathSync(dirname(abs)), basename(abs));
    } catch {
      return abs;
    }
  }
}

/** Why `output` may not be written by a command that reads `inputs` (files or folders), or undefined. */
export function outputClash(output: string, inputs: readonly string[]): string | undefined {
  const out = real(output);
  for (const input of inputs) {
    if (!existsSync(input)) continue;
    const inp = real(input);
    if (out === inp) return `is one of the inputs (${input}): writing it would replace what was read`;
    if (isInside(inp, out)) return `is inside the input folder ${input}: the next run would read it as part of the input`;
  }
  return undefined;
}

/**
 * Writes `text` to `output` (see the module comment); an OutputError says why it may not or could
 * not. A path that exists and is no regular file (`/dev/stdout`, a pipe) is written as it is: a
 * rename would replace it.
 */
export function writeOutput(output: string, text: string, inputs: readonly string[]): void {
  const clash = outputClash(output, inputs);
  if (clash) throw new OutputError(`--output ${output} ${clash}: choose a path outside the inputs`);
  const regular = lstatIfPresent(output)?.isFile() ?? true; // not there yet: made whole
  const temporary = join(dirname(output), `.${basename(output)}.${process.pid}.tmp`);
  try {
    if (!regular) writeFileSync(output, text);
    else {
      writeFileSync(temporary, text);
      renameSync(temporary, output);
    }
  } catch (e) {
    if (regular) removeQuietly(temporary);
    throw new OutputError(`--output ${output}: cannot write (${writeFailureText(e)})`);
  }
}

/** Removes a temporary file if it is there (its folder may be missing or a file: then it is not). */
function removeQuietly(path: string): void {
  try {
    rmSync(path, { force: true });
  } catch {
    // nothing was made
  }
}

/** Why `--output` could not be written, and what to do about it. */
function writeFailureText(e: unknown): string {
  const code = (e as NodeJS.ErrnoException).code;
  switch (code) {
    case 'ENOENT':
    case 'ENOTDIR':
      return `${code}: its folder does not exist: create it or choose another path`;
    case 'EISDIR':
      return `${code}: it is a folder: give a file name`;
    case 'EACCES':
    case 'EPERM':
    case 'EROFS':
      return `${code}: not writable here: choose a writable path`;
    case 'ENOSPC':
    case 'EDQUOT':
      return `${code}: the disk or quota is full: free space or write elsewhere`;
    default:
      return code ?? (e as Error).message;
  }
}
