/**
 * Reading YAML files for the CLI (validate, report) with the runtime's reader, so that a file
 * means what it means to a function: a ResourceList file or a `kind: List` (what `kubectl get
 * -o yaml` writes) is its items, JSON is JSON, and each item knows its file and first line for
 * `file:line` messages. Only regular files are read (a FIFO would hang, /dev/zero never ends),
 * at most MAX_INPUT_BYTES each, and bytes that are not UTF-8 are an error, never replaced, as
 * is a character YAML does not allow (a NUL: go-yaml refuses the file).
 */
import { closeSync, constants, fstatSync, openSync, readdirSync, statSync, type Stats } from 'node:fs';
import { join } from 'node:path';
import {
  decodeYamlText,
  KrmError,
  type KubeObject,
  MAX_INPUT_BYTES,
  missingInstallFile,
  readAllBytes,
  readInput,
  splitDocuments,
} from '../krm/index.js';

export interface FileObject {
  object: KubeObject;
  path: string;
  /** 1-based line of the item's first line */
  line: number;
  /** item index in the file */
  index: number;
}

/** A file's items, each knowing its first line (`sourceLine`). */
export interface FileItems {
  path: string;
  objects: KubeObject[];
}

export interface ReadFiles {
  files: FileItems[];
  /** files read that hold no item, with why: NO_DOCUMENT (empty, only comments or ---), or `a List with no items` */
  empty: { path: string; why: string }[];
  /** paths that are not regular files, with why (`a FIFO`): not read */
  skipped: string[];
  /** files that cannot be read (too large, not UTF-8, permissions, a List whose items is not a list) */
  errors: { path: string; message: string }[];
  /** characters read, all files */
  size: number;
}

function specialKind(st: Stats): string {
  if (st.isDirectory()) return 'a folder';
  if (st.isFIFO()) return 'a FIFO';
  if (st.isSocket()) return 'a socket';
  if (st.isCharacterDevice()) return 'a character device';
  if (st.isBlockDevice()) return 'a block device';
  return 'not a regular file';
}

/**
 * A file's text when it is a regular file (symbolic links followed) of at most
 * MAX_INPUT_BYTES, in UTF-8. `{ skip }` says why a special file was not read; problems with a
 * regular file throw KrmError (or the fs error).
 */
export function readRegularFile(path: string): { text: string } | { skip: string } {
  // O_NONBLOCK: opening a FIFO must not wait for a writer
  const fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) return { skip: specialKind(st) };
    if (st.size > MAX_INPUT_BYTES) throw new KrmError(`larger than ${MAX_INPUT_BYTES / 1024 / 1024} MiB: not read; split it`);
    return { text: decodeYamlText(readAllBytes(fd, path), 'the file') };
  } finally {
    closeSync(fd);
  }
}

/**
 * The documents of a YAML stream with the line each starts on, counted from its first line of
 * content (comment-only documents dropped): the runtime's splitter, for callers that copy
 * documents as text.
 */
export function splitWithLines(text: string): { body: string; line: number }[] {
  return splitDocuments(text).docs.map((d) => {
    const skip = /^(?:[ \t]*(?:#[^\n]*)?\r?\n)*/.exec(d.body)![0];
    return { body: d.body.slice(skip.length), line: d.line + (skip.match(/\n/g)?.length ?? 0) };
  });
}

/** The items of one file's text (ResourceList and List unwrapped), each with its first line as `sourceLine` (messages name a list's items `items[i]`, as the functions do). */
export function fileItems(text: string): KubeObject[] {
  const items = readInput(text).items;
  for (const object of items) object.sourceLine = object.inputLine ?? 1;
  return items;
}

/** The items of one file's text (ResourceList and List unwrapped), with their lines. */
export function fileObjects(path: string, text: string): FileObject[] {
  return fileItems(text).map((object, index) => ({ object, path, line: object.sourceLine!, index }));
}

/** A file-system error as messages say it: what is wrong, without node's call name and quoted path. */
export function fileErrorText(e: NodeJS.ErrnoException): string {
  switch (e.code) {
    case 'ENOENT':
      return 'no such file (or a broken symbolic link)';
    case 'EACCES':
    case 'EPERM':
      return 'permission denied';
    case 'ELOOP':
      return 'a loop of symbolic links';
    case 'EISDIR':
      return 'a folder, not a file';
    default:
      return (e.message ?? String(e)).split('\n')[0]!;
  }
}

/** How standard input is named in messages, and among the paths of `readYamlFiles`. */
export const STDIN = '<stdin>';

/** Why a text read holds no item: no document at all, or a list of none. */
function whyEmpty(text: string): string {
  if (text.trim() === '') return NO_DOCUMENT;
  return splitDocuments(text).docs.length === 0 ? `${NO_DOCUMENT} (only comments or ---)` : 'a List with no items';
}

/** What `ReadFiles.empty` says of a file without a single YAML document. */
export const NO_DOCUMENT = 'no YAML document';

/**
 * Reads files (STDIN among them: `readStdin`'s bytes, same limits); special files are skipped
 * and unreadable ones reported, never fatal for the others.
 */
export function readYamlFiles(paths: string[], readStdin: () => Uint8Array = () => readAllBytes(0, 'stdin')): ReadFiles {
  const out: ReadFiles = { files: [], empty: [], skipped: [], errors: [], size: 0 };
  for (const path of paths) {
    try {
      const r = path === STDIN ? { text: decodeYamlText(readStdin(), 'stdin') } : readRegularFile(path);
      if ('skip' in r) out.skipped.push(`${path}: ${r.skip}, not a regular file: not read`);
      else {
        out.size += r.text.length;
        const objects = fileItems(r.text);
        out.files.push({ path, objects });
        if (objects.length === 0) out.empty.push({ path, why: whyEmpty(r.text) });
      }
    } catch (e) {
      const err = e as NodeJS.ErrnoException;
      // a broken install (a file of dist/ missing) stops the command, it is not this file's problem
      if ((!(e instanceof KrmError) && !err.code) || missingInstallFile(e)) throw e;
      out.errors.push({ path, message: e instanceof KrmError ? e.message : fileErrorText(err) });
    }
  }
  return out;
}

/**
 * The files under `dir` whose names `wanted` takes, sorted, dot-entries and node_modules skipped,
 * each folder once however symbolic links lead to it (a folder is known by its device and inode:
 * a realpath per folder costs a call per folder above it, quadratic in a deep tree). A broken
 * link is kept when its name is wanted (reading it reports it).
 */
export function filesUnder(dir: string, wanted: (name: string) => boolean, out: string[] = [], seen = new Set<string>()): string[] {
  const st = statSync(dir);
  const id = `${st.dev}:${st.ino}`;
  if (seen.has(id)) return out; // a link back up: each folder is read once
  seen.add(id);
  for (const e of readdirSync(dir).sort()) {
    if (e.startsWith('.') || e === 'node_modules') continue;
    const p = join(dir, e);
    let isDir = false;
    try {
      isDir = statSync(p).isDirectory();
    } catch {
      isDir = false; // a broken link
    }
    if (isDir) filesUnder(p, wanted, out, seen);
    else if (wanted(e)) out.push(p);
  }
  return out;
}
