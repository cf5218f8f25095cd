/**
 * Input as bytes: a size limit (stdin and files can be endless: /dev/zero, a FIFO), and UTF-8
 * checked rather than silently replaced, with the byte offset and line of the first bad byte;
 * then the characters YAML does not allow (a NUL ...), refused as go-yaml refuses them.
 */
import { fstatSync, readSync } from 'node:fs';
import { KrmError } from './kube-object.js';
import { notPrintableDetail, UNSAFE } from './printable.js';
import { lazy } from './lazy.js';

/** The largest input read (a JavaScript string holds at most ~512 MiB). */
export const MAX_INPUT_BYTES = 256 * 1024 * 1024;

const MIB = 1024 * 1024;

/** An input from which a full garbage collection between phases pays for itself (collectGarbage). */
export const LARGE_INPUT = 16 * MIB;

/**
 * Whether to collect the garbage of a run's work before its results are made into output: a
 * large input with many results (60k results on 20k objects: the results would stack on top
 * of the garbage, +30 MiB at the peak). With few results the peak is the work itself, and the
 * collection would only cost time (~5% at 100k objects).
 */
export function collectBeforeResults(inputChars: number, results: number): boolean {
  return inputChars >= LARGE_INPUT && results >= 10_000;
}

/** Offset of the first byte that does not belong to a valid UTF-8 sequence, or -1. */
function firstInvalidUtf8(b: Uint8Array): number {
  for (let i = 0; i < b.length; ) {
    const c = b[i]!;
    if (c < 0x80) {
      i++;
      continue;
    }
    let n: number;
    let cp: number;
    let min: number;
    if ((c & 0xe0) === 0xc0) [n, cp, min] = [1, c & 0x1f, 0x80];
    else if ((c & 0xf0) === 0xe0) [n, cp, min] = [2, c & 0x0f, 0x800];
    else if ((c & 0xf8) === 0xf0) [n, cp, min] = [3, c & 0x07, 0x10000];
    else return i;
    if (i + n >= b.length) return i; // cut short
    for (let k = 1; k <= n; k++) {
      const x = b[i + k]!;
      if ((x & 0xc0) !== 0x80) return i;
      cp = (cp << 6) | (x & 0x3f);
    }
    if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return i;
    i += n + 1;
  }
  return -1;
}

/** Where a byte offset is: 1-based line and byte column. */
function bytePosition(b: Uint8Array, offset: number): { line: number; col: number } {
  let line = 1;
  let start = 0;
  for (let i = b.indexOf(10); i >= 0 && i < offset; i = b.indexOf(10, i + 1)) {
    line++;
    start = i + 1;
  }
  return { line, col: offset - start + 1 };
}

/** A byte string that is not UTF-8: the offset, line and value of the first bad byte. */
export class NotUtf8Error extends KrmError {
  constructor(
    readonly source: string,
    readonly offset: number,
    readonly line: number,
    readonly col: number,
    readonly byte: number,
    /** the bytes start with a UTF-16 byte-order mark (FF FE, FE FF): the fix is another conversion */
    utf16 = false,
  ) {
    super(
      utf16
        ? `${source} is UTF-16 (it starts with a UTF-16 byte-order mark), not UTF-8: YAML is read as UTF-8: convert the file (iconv -f utf-16 -t utf-8)`
        : `${source} is not valid UTF-8: byte 0x${byte.toString(16).toUpperCase().padStart(2, '0')} at byte offset ${offset} (line ${line}, byte ${col} of the line); ` +
            'YAML is read as UTF-8: convert the file (e.g. iconv -f latin1 -t utf-8)',
    );
  }
}

/** Text holding a character YAML does not allow (printable.ts): where it is, as NotUtf8Error says it. */
export class NotPrintableError extends KrmError {
  constructor(
    readonly source: string,
    readonly offset: number,
    readonly line: number,
    readonly col: number,
    char: string,
  ) {
    super(
      `${source} holds a character YAML does not allow at byte offset ${offset} (line ${line}, byte ${col} of the line); ${notPrintableDetail(char)}`,
    );
  }
}

/**
 * Throws NotPrintableError when the text holds a character YAML does not allow anywhere (a NUL,
 * another control character: printable.ts), as go-yaml refuses such a file before reading it.
 * One regular-expression scan; lines end at LF and at a bare CR, as the readers count them.
 */
export function checkPrintable(text: string, name = 'input'): string {
  const m = UNSAFE.exec(text);
  if (!m) return text;
  const before = text.slice(0, m.index);
  const lineStart = Math.max(before.lastIndexOf('\n'), before.lastIndexOf('\r')) + 1;
  const line = 1 + (before.match(/\r\n|\r|\n/g)?.length ?? 0);
  throw new NotPrintableError(name, Buffer.byteLength(before), line, Buffer.byteLength(before.slice(lineStart)) + 1, m[0]);
}

/** The bytes as text a YAML reader takes: UTF-8 (NotUtf8Error) holding only characters YAML allows (NotPrintableError). */
export function decodeYamlText(bytes: Uint8Array, name = 'input'): string {
  return checkPrintable(decodeUtf8(bytes, name), name);
}

/**
 * The bytes as a string; throws NotUtf8Error instead of replacing bad bytes with U+FFFD. Decoded
 * first: text without U+FFFD came from valid UTF-8 (the decoder puts one for every bad byte), and
 * only text holding one is checked (node:buffer's isUtf8, loaded then: a public built-in's first
 * require costs ~0.3 ms of a start, and the search for U+FFFD in one-byte text is free).
 */
export function decodeUtf8(bytes: Uint8Array, name = 'input'): string {
  const buf = Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const text = buf.toString('utf8');
  if (!text.includes('\ufffd') || nodeBuffer().isUtf8(buf)) return text;
  const at = firstInvalidUtf8(buf);
  if (at < 0) return text;
  const { line, col } = bytePosition(buf, at);
  const utf16 = buf.length >= 2 && ((buf[0] === 0xff && buf[1] === 0xfe) || (buf[0] === 0xfe && buf[1] === 0xff));
  throw new NotUtf8Error(name, at, line, col, buf[at]!, utf16);
}

const nodeBuffer = lazy(() => require('node:buffer') as typeof import('node:buffer'), 'node:buffer', import.meta.url);

export function tooLarge(name: string, size: number | undefined): KrmError {
  return new KrmError(
    `${name} is larger than ${MAX_INPUT_BYTES / MIB} MiB${size !== undefined ? ` (${Math.ceil(size / MIB)} MiB)` : ''}: not read; split it into smaller files`,
  );
}

/** A 4-byte cell to sleep on (Atomics.wait): a millisecond between reads of a non-blocking descriptor. */
let pauseCell: Int32Array | undefined;

/**
 * readSync that waits while a non-blocking descriptor has nothing yet (EAGAIN: a parent that set
 * O_NONBLOCK on the pipe or terminal it gave as stdin), a millisecond at a time. It once threw
 * EAGAIN for the caller to read the rest as a stream, and what had been read was lost.
 */
function readWaiting(fd: number, buf: Buffer, offset: number, length: number): number {
  for (;;) {
    try {
      return readSync(fd, buf, offset, length, null);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EAGAIN') throw e;
      pauseCell ??= new Int32Array(new SharedArrayBuffer(4));
      Atomics.wait(pauseCell, 0, 0, 1);
    }
  }
}

/**
 * Reads a file descriptor to its end, at most MAX_INPUT_BYTES. Throws KrmError when there is
 * more; a non-blocking descriptor is waited for (readWaiting), nothing read is lost.
 * An input that one read holds (the usual: a function's ResourceList) is read without an fstat
 * (node's Stats code is compiled at its first use, ~0.2 ms of a start); a larger regular file is
 * then read at its size in one buffer, a pipe in chunks.
 */
export function readAllBytes(fd: number, name: string): Buffer {
  const first = Buffer.allocUnsafe(1 << 20);
  let n = 0;
  for (let r: number; n < first.length && (r = readWaiting(fd, first, n, first.length - n)) > 0; ) n += r;
  if (n < first.length) return first.subarray(0, n);
  const st = fstatSync(fd);
  if (st.isFile()) {
    if (st.size > MAX_INPUT_BYTES) throw tooLarge(name, st.size);
    const buf = Buffer.allocUnsafe(Math.max(st.size, n));
    first.copy(buf, 0, 0, n);
    let off = n;
    while (off < buf.length) {
      const r = readWaiting(fd, buf, off, buf.length - off);
      if (r === 0) break;
      off += r;
    }
    return off === buf.length ? buf : buf.subarray(0, off);
  }
  const chunks: Buffer[] = [first];
  let total = n;
  for (;;) {
    const chunk = Buffer.allocUnsafe(1 << 20);
    const r = readWaiting(fd, chunk, 0, chunk.length);
    if (r === 0) break;
    total += r;
    if (total > MAX_INPUT_BYTES) throw tooLarge(name, undefined);
    chunks.push(r === chunk.length ? chunk : chunk.subarray(0, r));
  }
  return chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, total);
}

/**
 * One full garbage collection, now: after a large input is decoded its bytes are garbage (and
 * after a large analysis its working state), but V8 would keep them until its old space
 * doubles, which is the run's peak memory. Costs a few milliseconds with a young heap, tens
 * with 100 MiB live: callers do it for large inputs only. Skipped when the runtime does not allow it.
 */
export function collectGarbage(): void {
  try {
    const v8 = require('node:v8') as typeof import('node:v8');
    v8.setFlagsFromString('--expose-gc');
    (require('node:vm') as typeof import('node:vm')).runInNewContext('gc')();
  } catch {
    // not possible here: memory is freed later
  }
}
