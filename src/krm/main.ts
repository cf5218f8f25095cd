/**
 * The entry point every function shares (like kpt's `fn.AsMain`): read the input, check the
 * functionConfig against the function's schema, run, write the ResourceList, exit 1 on error
 * results. Output is always written, even when the function fails, and logs go to stderr.
 */
import { existsSync, readFileSync, statSync, writeSync } from 'node:fs';
import { resolve } from 'node:path';
import { documentKey, type PackageFile, packageFiles, sinkResourceList, sourceResourceList } from './local-package.js';
import { KrmError, type KubeObject } from './kube-object.js';
import type { HeaderProblem } from './header.js';
import { Context } from './context.js';
import { endsLine, splitDocuments } from './scan.js';
import { joinChunks, type OutputChunk, readInput, unreadJsonList, writeOutputChunks, type ParsedInput } from './resource-list.js';
import {
  checkPrintable,
  collectBeforeResults,
  collectGarbage,
  decodeUtf8,
  LARGE_INPUT,
  NotPrintableError,
  NotUtf8Error,
  readAllBytes,
} from './input-bytes.js';
import { plainYaml } from './emit.js';
import { addCredentialsOf } from './credentials.js';
import { InstallError, missingInstallFile } from './install.js';
import { formatResult, Results, type Result } from './results.js';
import { schemaReference, type JsonSchema } from './schema-doc.js';
import { redactText, Redactor } from '../secrets/redact.js';
import { pushAll } from './data.js';
import { lazy } from './lazy.js';

export const API_VERSION = 'baremetal-krm.dev/v1alpha1';

/**
 * functionConfig annotation for report-only runs: error results are reported as warnings and
 * the exit code is 0, so a pipeline renders while the findings are being fixed.
 */
export const REPORT_ONLY = 'baremetal-krm.dev/report-only';

/** What ajv standalone validators look like (precompiled at build time). */
export interface CompiledValidator {
  (data: unknown): boolean;
  errors?: { instancePath: string; message?: string; params?: Record<string, unknown>; keyword: string }[] | null;
}

export interface FunctionDefinition<Spec> {
  /** `bmh-from-redfish` */
  name: string;
  /** functionConfig kind, `BMHFromRedfish` */
  configKind: string;
  /** one paragraph */
  summary: string;
  /** JSON schema of `spec`, for help text */
  specSchema: JsonSchema;
  /** precompiled validator of `spec` */
  validateSpec: CompiledValidator;
  /** turns a ConfigMap functionConfig's `data` into a spec; absent = ConfigMaps are refused */
  fromConfigMap?: (data: Record<string, string>) => unknown;
  /** more help: rules, examples */
  moreHelp?: string;
  run(ctx: Context<Spec>): void | Promise<void>;
}

export interface RunOutput {
  /** the output text (stdout) */
  readonly output: string;
  /** the same in pieces, as written (the results made as they are written) */
  chunks: OutputChunk[];
  exitCode: number;
  results: Result[];
  stderr: string;
}

function describeAjvError(e: NonNullable<CompiledValidator['errors']>[number]): string {
  const field = 'spec' + e.instancePath.replace(/\/(\d+)(?=\/|$)/g, '[$1]').replace(/\//g, '.');
  const p = e.params ?? {};
  switch (e.keyword) {
    case 'additionalProperties':
      return `${field}: unknown field "${String(p.additionalProperty)}"`;
    case 'enum':
      return `${field}: must be one of ${(p.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')}`;
    case 'required':
      return `${field}: missing required field "${String(p.missingProperty)}"`;
    default:
      return `${field}: ${e.message ?? 'is invalid'}`;
  }
}

/** Reads the spec from the functionConfig; reports what is wrong as results. */
/** What `readSpec` needs of a function: its name, config kind and spec validator. */
export type ConfigDefinition = Pick<FunctionDefinition<unknown>, 'name' | 'configKind' | 'validateSpec' | 'fromConfigMap'>;

export function readSpec<Spec>(def: ConfigDefinition, fc: KubeObject | undefined, results: Results): Spec | undefined {
  let spec: unknown = {};
  if (fc) {
    let data: Record<string, unknown>;
    try {
      data = fc.data;
    } catch (e) {
      if (e instanceof InstallError) throw e; // a broken install, not this input's problem
      results.error(`functionConfig: ${(e as Error).message}`, { rule: 'config' });
      return undefined;
    }
    if (fc.kind === 'ConfigMap' && fc.apiVersion === 'v1') {
      if (!def.fromConfigMap) {
        results.error(`functionConfig: a ConfigMap is not accepted; use apiVersion ${API_VERSION}, kind ${def.configKind}`, {
          rule: 'config',
        });
        return undefined;
      }
      const raw = (data.data ?? {}) as Record<string, unknown>;
      const strings: Record<string, string> = {};
      for (const [k, v] of Object.entries(raw)) strings[k] = String(v);
      try {
        spec = def.fromConfigMap(strings);
      } catch (e) {
        if (e instanceof InstallError) throw e; // a broken install, not this input's problem
        results.error(`functionConfig ConfigMap: ${(e as Error).message}`, { rule: 'config', field: 'data' });
        return undefined;
      }
    } else if (fc.apiVersion === API_VERSION && fc.kind === def.configKind) {
      spec = data.spec ?? {};
    } else {
      results.error(
        `functionConfig ${fc.apiVersion || '(no apiVersion)'}/${fc.kind || '(no kind)'} is not for ${def.name}: expected apiVersion ${API_VERSION}, kind ${def.configKind}${def.fromConfigMap ? ' (or a v1 ConfigMap)' : ''}`,
        { rule: 'config', field: 'kind' },
      );
      return undefined;
    }
  }
  if (!def.validateSpec(spec)) {
    for (const e of def.validateSpec.errors ?? []) {
      results.error(`functionConfig ${def.configKind} ${describeAjvError(e)}`, {
        rule: 'config',
        field: 'spec' + e.instancePath.replace(/\//g, '.'),
      });
    }
    return undefined;
  }
  return spec as Spec;
}

/** The output of one run; `output` joins `chunks` (slices of the input where nothing changed). */
function runOutput(chunks: OutputChunk[], exitCode: number, results: Result[], stderr: string): RunOutput {
  let joined: string | undefined;
  return {
    chunks,
    get output(): string {
      joined ??= joinChunks(chunks);
      return joined;
    },
    exitCode,
    results,
    stderr,
  };
}

/** A ResourceList in the text (YAML or JSON): a fatal input error is then reported in one. */
function looksLikeResourceList(text: string): boolean {
  if (/"kind"\s*:\s*"ResourceList"/.test(text.slice(0, 4096))) return true;
  // one YAML document: a ResourceList among others is a stream (its results go to stderr, never
  // into the last document)
  return /^(?:kind|"kind"|'kind') *: *['"]?ResourceList\b/m.test(text) && splitDocuments(text).docs.length === 1;
}

/** Files kpt and kustomize pass through functions that need no apiVersion/kind. */
const KUSTOMIZATION_FILE = /(?:^|\/)(?:kustomization\.ya?ml|Kustomization)$/;

/**
 * Every input item must be readable and a mapping: an error otherwise, and the function does
 * not run (returns false). A header that is wrong (header.ts: a field of the wrong type, kind
 * without apiVersion...) is an error naming the item, field and fix; the function runs on the
 * others and passes the item through untouched. An item without apiVersion and kind is not a
 * KRM resource: kpt and kustomize pass such files (a kustomization.yaml) through functions, so
 * it is only named (info; nothing for a kustomization file).
 */
function checkItems(items: readonly KubeObject[], results: Results): boolean {
  let readable = true;
  // indexed, not items.entries(): an [index, item] pair per item is garbage at 100k items
  for (let i = 0; i < items.length; i++) {
    const o = items[i]!;
    let problems: readonly HeaderProblem[];
    try {
      o.check();
      problems = o.headerProblems;
    } catch (e) {
      if (!(e instanceof KrmError)) throw e;
      results.error(e.message, { rule: 'input' });
      readable = false;
      continue;
    }
    const file = o.file();
    // the field's line in the input; an item kpt read from a file has lines there the function cannot count
    const object = o.identityKnown ? o : undefined;
    for (const p of problems)
      results.error(o.headerMessage(p, i), { rule: 'input', object, field: p.field, file, line: file ? undefined : o.lineOf(p.path) });
    if (problems.length > 0 || o.apiVersion || o.kind) continue;
    if (file && KUSTOMIZATION_FILE.test(file.path)) continue;
    results.info(`${o.label(i)} has no apiVersion and kind: not a KRM resource; passed through as it is`, { rule: 'input', file });
  }
  return readable;
}

/** The item holding a 1-based line of the input, for messages about bytes. */
function itemAtLine(text: string, line: number): string {
  try {
    const items = readInput(text).items;
    let found: KubeObject | undefined;
    for (const o of items) if ((o.inputLine ?? Number.POSITIVE_INFINITY) <= line) found = o;
    if (!found) return '';
    const which = found.where ?? `items[${found.listIndex ?? items.indexOf(found)}]`;
    let id = '';
    try {
      id = ` ${found.id}`;
    } catch {
      id = '';
    }
    return `, in ${which}${id}`;
  } catch {
    return '';
  }
}

/**
 * Input bytes as text; on bad UTF-8 or a character YAML does not allow (a NUL: go-yaml refuses
 * the whole input) an error result naming the item, and nothing to write.
 */
function inputText(input: string | Uint8Array, results: Results): string | undefined {
  try {
    return checkPrintable(typeof input === 'string' ? input : decodeUtf8(input));
  } catch (e) {
    if (!(e instanceof NotUtf8Error || e instanceof NotPrintableError)) throw e;
    const text = typeof input === 'string' ? input : Buffer.from(input.buffer, input.byteOffset, input.byteLength).toString('utf8');
    const where = itemAtLine(text, e.line);
    results.error(where ? e.message.replace(/\)(;)/, `${where})$1`) : e.message, { rule: 'input' });
    return undefined;
  }
}

/** Whether the functionConfig asks for report-only (false when it cannot be read: readSpec reported that). */
function reportOnly(fc: KubeObject | undefined): boolean {
  try {
    return fc?.annotations[REPORT_ONLY] === 'true';
  } catch (e) {
    if (e instanceof KrmError) return false;
    throw e;
  }
}

/**
 * Output when the input cannot be read (exit 1), nothing lost: a stream is written back as it
 * came; a ResourceList too, with the results after it (a JSON one inserted in its object), for
 * whoever shows them. An emptied list with the results once lost every item for `fn < f > out`;
 * kpt and kustomize never send a list they cannot read themselves.
 */
function fatal(text: string, results: Results): RunOutput {
  if (!looksLikeResourceList(text)) return finish([text], results.list, true);
  const json = unreadJsonList(text, results.list);
  if (json !== undefined) return finish([json], results.list);
  // JSON that cannot be scanned: as it came (a YAML key after it would be neither); the results are on stderr
  if (/^\ufeff?\s*[{[]/.test(text)) return finish([text], results.list, true);
  return finish([text, endsLine(text) ? '' : '\n', 'results:\n' + plainYaml(results.list)], results.list);
}

/** Runs a function on input text (or bytes: checked to be UTF-8), in process. Never throws for bad input. */
export async function runFunction<Spec>(
  def: FunctionDefinition<Spec>,
  input: string | Uint8Array,
  env: Record<string, string | undefined> = {},
  /** the line each sourced document starts on in its file (sourceResourceList), for results' lines */
  documentLines?: ReadonlyMap<string, number>,
): Promise<RunOutput> {
  const results = new Results();
  const text = inputText(input, results);
  if (text === undefined) {
    new Redactor().addEnv(env).scrubResults(results.list);
    return finish([], results.list, true); // bad bytes: write nothing
  }
  let parsed: ParsedInput;
  try {
    parsed = readInput(text);
  } catch (e) {
    if (!(e instanceof KrmError)) throw e;
    results.error(e.message, { rule: 'input' });
    new Redactor().addEnv(env).scrubResults(results.list);
    return fatal(text, results);
  }
  if (documentLines) placeInFiles(parsed.items, documentLines);
  let items = parsed.items;
  let internal = '';
  let readNotes: [KubeObject, string][] | undefined;
  const readable = checkItems(parsed.items, results);
  if (!readable && parsed.format === 'stream' && looksLikeResourceList(text)) {
    new Redactor().addEnv(env).scrubResults(results.list);
    return fatal(text, results);
  }
  const spec = readable ? readSpec<Spec>(def, parsed.functionConfig, results) : undefined;
  let secrets = new Redactor();
  if (spec !== undefined) {
    const ctx = new Context<Spec>([...parsed.items], spec, parsed.functionConfig, env);
    secrets = ctx.secrets;
    try {
      await def.run(ctx);
      items = [...ctx.items];
    } catch (e) {
      // nothing half-written: the input items go out as they came in, read again (the function
      // may have edited some before it failed); what the reader noted on them is kept
      readNotes = itemNotes(parsed.items);
      parsed = readInput(text);
      items = parsed.items;
      const missing = missingInstallFile(e);
      if (e instanceof KrmError) ctx.results.error(e.message, { rule: 'input' });
      else if (missing) ctx.results.error(missing, { rule: 'install' });
      else {
        ctx.results.error(`internal error in ${def.name}: ${(e as Error).message} (please report this)`, { rule: 'internal' });
        internal = (e as Error).stack ?? String(e);
      }
    }
    pushAll(results.list, ctx.results.list);
    // what the function worked with is garbage now: freed before many results are made into output, not under them
    if (collectBeforeResults(text.length, ctx.results.list.length)) collectGarbage();
  }
  for (const n of parsed.notes) results.info(n, { rule: 'input' });
  for (const [o, n] of readNotes ?? itemNotes(parsed.items)) results.info(n, { rule: 'input', object: o });
  let reportOnlyLine = '';
  if (reportOnly(parsed.functionConfig)) {
    const errors = results.list.filter((r) => r.severity === 'error');
    for (const r of errors) r.severity = 'warning';
    reportOnlyLine = `report-only: ${errors.length} error(s) reported as warnings; ${writtenSummary(parsed.items, items)}\n`;
  }
  // every text a reader sees leaves through the redaction (src/secrets): results (and the
  // stderr lines made of them) and internal errors, scrubbed of every credential of this run
  const scrub = (): void => {
    if (results.list.length === 0 && !internal) return;
    secrets.addEnv(env);
    for (const o of [...itemsNamedBy(results.list, parsed.items), ...(parsed.functionConfig ? [parsed.functionConfig] : [])])
      addCredentialsOf(secrets, o);
    secrets.scrubResults(results.list);
  };
  scrub();
  let chunks: OutputChunk[];
  try {
    chunks = outputChunks(parsed, items, results, scrub);
  } catch (e) {
    // a bug while writing: the input goes out as it came (nothing half-written), with the error
    if (e instanceof KrmError) results.error(e.message, { rule: 'input' });
    else {
      results.error(`internal error in ${def.name} while writing its output: ${(e as Error).message} (please report this)`, {
        rule: 'internal',
      });
      internal = (e as Error).stack ?? String(e);
    }
    scrub();
    parsed = readInput(text);
    chunks = writeOutputChunks(parsed, parsed.items, results.list).chunks;
  }
  const out = finish(chunks, results.list, parsed.format === 'stream');
  // report-only keeps the exit code 0 whatever happened: say what the output holds
  out.stderr += reportOnlyLine;
  if (internal) out.stderr += secrets.scrub(internal) + '\n';
  return out;
}

/**
 * Input items the output holds written anew (not as they came, nor patched line by line), each
 * with why: an edit the line patcher cannot make (flow style, a deletion, anchors ...).
 */
function rewrittenItems(input: readonly KubeObject[], output: readonly KubeObject[]): [KubeObject, string][] {
  const out: [KubeObject, string][] = [];
  let inputs: Set<KubeObject> | undefined;
  for (const o of output) {
    const note = o.rewriteNote;
    if (note === undefined) continue;
    inputs ??= new Set(input);
    if (inputs.has(o)) out.push([o, note]);
  }
  return out;
}

/** What the reader noted on the items it read (non-standard constructs it accepted). */
function itemNotes(items: readonly KubeObject[]): [KubeObject, string][] {
  return items.flatMap((o) => o.notes.map((n): [KubeObject, string] => [o, n]));
}

/**
 * The output of `items`, and, when input items are written anew (rather than as they came or
 * patched line by line) or had to be written from their data, the results saying so and why.
 */
function outputChunks(parsed: ParsedInput, items: KubeObject[], results: Results, scrub: () => void): OutputChunk[] {
  const written = writeOutputChunks(parsed, items, results.list);
  const rewritten = rewrittenItems(parsed.items, items);
  if (written.notes.length === 0 && rewritten.length === 0) return written.chunks;
  // said once the output is written (a failure to write sends the input as it came), then the list written again with the results
  for (const [o, n] of rewritten) results.info(n, { rule: 'input', object: o });
  for (const n of written.notes) results.info(n.message, { rule: 'input', object: n.object });
  scrub();
  return writeOutputChunks(parsed, items, results.list).chunks;
}

/** The input items results are about (a message quotes the item it names): the others are not read again. */
function itemsNamedBy(results: readonly Result[], items: readonly KubeObject[]): KubeObject[] {
  const key = (r: { apiVersion?: string; kind?: string; namespace?: string; name?: string }): string =>
    `${r.apiVersion ?? ''}|${r.kind ?? ''}|${r.namespace ?? ''}|${r.name ?? ''}`;
  const named = new Set(results.flatMap((r) => (r.resourceRef ? [key(r.resourceRef)] : [])));
  if (named.size === 0) return [];
  // the name first (no ref object and key made for each of 100k items when results name a few)
  const names = new Set(results.map((r) => r.resourceRef?.name ?? ''));
  return items.filter((o) => {
    try {
      return names.has(o.name) && named.has(key(o.ref()));
    } catch {
      return false;
    }
  });
}

/** What a run wrote, compared with its input: `wrote nothing (...)` or `wrote 2 new, 1 changed item(s)`. */
function writtenSummary(before: readonly KubeObject[], after: readonly KubeObject[]): string {
  const was = new Set(before);
  const now = new Set(after);
  const added = after.filter((o) => !was.has(o)).length;
  const changed = after.filter((o) => was.has(o) && o.changed).length;
  const removed = before.filter((o) => !now.has(o)).length;
  if (added + changed + removed === 0) return 'wrote nothing: the output items are the input items, unchanged';
  const parts = [added && `${added} new`, changed && `${changed} changed`, removed && `${removed} removed`].filter(Boolean);
  return `wrote ${parts.join(', ')} item(s)`;
}

/**
 * The run's output, with the lines for stderr: every error, and every warning too when stderr is
 * the only place the results are (`onlyStderr`: a plain stream out, or nothing): a stream in a
 * pre-commit hook would otherwise count warnings it never shows. Info is counted.
 */
function finish(chunks: OutputChunk[], results: Result[], onlyStderr = false): RunOutput {
  const errors = results.filter((r) => r.severity === 'error');
  const warnings = results.filter((r) => r.severity === 'warning');
  let stderr = '';
  for (const r of errors) stderr += formatResult(r) + '\n';
  if (onlyStderr) for (const r of warnings) stderr += formatResult(r) + '\n';
  if (errors.length || warnings.length)
    stderr += `${errors.length} error(s), ${warnings.length} warning(s), ${results.length - errors.length - warnings.length} info\n`;
  return runOutput(chunks, errors.length > 0 ? 1 : 0, results, stderr);
}

/**
 * --sink: every result on stderr (there is no ResourceList to carry them), then the items into
 * the folder, unless there are errors: nothing is half-written.
 */
async function sinkOutput(name: string, opts: BundleOptions, r: RunOutput, sourced: PackageFile[]): Promise<number> {
  const lines = r.results.map((x) => formatResult(x) + '\n');
  if (lines.length) await write(2, lines);
  if (r.exitCode !== 0) {
    await write(2, [`${name}: error results: nothing written to ${opts.sink}\n`]);
    return 1;
  }
  const sameFolder = opts.source !== undefined && resolve(opts.source) === resolve(opts.sink!);
  try {
    // the sourced files give every document its comments and bytes, wherever the sink is; only the
    // source folder itself has its emptied files removed
    const s = sinkResourceList(opts.sink!, r.output, sourced, sameFolder);
    await write(2, [`${name}: ${opts.sink}: ${s.written.length} file(s) written, ${s.removed.length} removed, ${s.unchanged} unchanged\n`]);
    return 0;
  } catch (e) {
    if (!(e instanceof KrmError)) throw e;
    await write(2, [`${name}: error: ${e.message}\n`]);
    return 1;
  }
}

function helpText<Spec>(def: FunctionDefinition<Spec>): string {
  return [
    `${def.name}: ${def.summary}`,
    '',
    'Usage:',
    `  kpt fn eval --exec ./dist/${def.name}.cjs --fn-config config.yaml <pkg>`,
    `  kpt fn render <pkg>            # Kptfile pipeline: exec: or image: ghcr.io/baremetal-krm/${def.name}:v<version>`,
    `  kustomize build --enable-alpha-plugins <dir>   # container function, see README`,
    `  cat resources.yaml | node dist/${def.name}.cjs  # a ResourceList or plain YAML stream on stdin`,
    `  node dist/${def.name}.cjs --fn-config config.yaml --source <dir> [--sink <dir>]  # a folder, as kpt fn source/sink`,
    '',
    `functionConfig: apiVersion ${API_VERSION}, kind ${def.configKind}${def.fromConfigMap ? ' (or a v1 ConfigMap: the empty one kpt fn eval sends without --fn-config)' : ''}; no spec = defaults.`,
    '',
    'spec fields:',
    schemaReference(def.specSchema, '  '),
    def.moreHelp ? '\n' + def.moreHelp : '',
  ].join('\n');
}

/**
 * Stdin as text, at most MAX_INPUT_BYTES (bytes that are not UTF-8 are returned as bytes, for
 * runFunction to say where). Synchronous reads avoid loading Node's stream machinery, which
 * costs more than the rest of a small run; a non-blocking stdin is waited for (readAllBytes).
 * The bytes are garbage once decoded: a large input's are collected at once.
 */
async function readStdin(): Promise<string | Buffer> {
  let bytes: Buffer | undefined;
  try {
    bytes = readAllBytes(0, 'input');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code !== undefined) throw new KrmError(`cannot read stdin (${code}): give the input on stdin as a file or a pipe`);
    throw e;
  }
  const large = bytes.length >= LARGE_INPUT;
  if (large) collectGarbage(); // the chunks a pipe was read in
  let text: string;
  try {
    text = decodeUtf8(bytes);
  } catch (e) {
    if (!(e instanceof NotUtf8Error)) throw e;
    return bytes;
  }
  bytes = undefined;
  if (large) collectGarbage();
  return text;
}

/**
 * Writes text chunks to fd 1 or 2 synchronously, about 1 MiB at a time: each chunk is encoded
 * straight into one buffer (no string of joined chunks to flatten; large chunks cut, never
 * inside a surrogate pair: the output never exists whole as bytes); falls back to the process
 * stream on EAGAIN.
 */
async function write(fd: 1 | 2, chunks: readonly OutputChunk[]): Promise<void> {
  const PIECE = 1 << 20;
  let total = 0;
  // lazy text (the results) is made as it is written: its size is not known, a piece at most is room enough
  for (const chunk of chunks) total += typeof chunk === 'string' ? chunk.length : PIECE;
  // UTF-8 takes at most 3 bytes per UTF-16 unit; a piece is at most PIECE + 1 units
  const size = 3 * (Math.min(total, PIECE) + 1);
  if (!outBuffer || outBuffer.length < size) outBuffer = Buffer.allocUnsafe(Math.max(size, 1 << 16));
  const buf = outBuffer;
  let used = 0;
  for (const chunk of texts(chunks)) {
    for (let at = 0; at < chunk.length; ) {
      let to = Math.min(chunk.length, at + PIECE);
      if (to < chunk.length) {
        const last = chunk.charCodeAt(to - 1);
        if (last >= 0xd800 && last <= 0xdbff) to++; // never cut a surrogate pair
      }
      const piece = at === 0 && to === chunk.length ? chunk : chunk.slice(at, to);
      if (used + 3 * piece.length > buf.length) {
        await writeBytes(fd, used);
        used = 0;
      }
      used += buf.write(piece, used, 'utf8');
      at = to;
    }
  }
  if (used) await writeBytes(fd, used);
}

/** The chunks' texts in order, lazy ones made as they are reached. */
function* texts(chunks: readonly OutputChunk[]): Generator<string> {
  for (const c of chunks) {
    if (typeof c === 'string') yield c;
    else yield* c.pieces();
  }
}

/** One buffer for all output: no garbage per piece. */
let outBuffer: Buffer | undefined;

/** Writes the first `length` bytes of outBuffer. */
async function writeBytes(fd: 1 | 2, length: number): Promise<void> {
  const buf = outBuffer!;
  let off = 0;
  try {
    while (off < length) off += writeSync(fd, buf, off, length - off);
    return;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EAGAIN') throw closedOr(e, fd);
  }
  const rest = Buffer.from(buf.subarray(off, length)); // the stream keeps it: a copy
  const stream = fd === 1 ? process.stdout : process.stderr;
  endQuietlyWhenReaderGoes(stream);
  await new Promise<void>((resolve) => {
    if (stream.write(rest)) resolve();
    else stream.once('drain', resolve);
  });
}

const watched = new WeakSet<NodeJS.WriteStream>();
/** A stream written asynchronously reports a closed reader as an 'error' event, later: exit 1 then, quietly. */
function endQuietlyWhenReaderGoes(stream: NodeJS.WriteStream): void {
  if (watched.has(stream)) return;
  watched.add(stream);
  stream.on('error', (e: NodeJS.ErrnoException) => {
    const failed = closedOr(e, stream === process.stdout ? 1 : 2);
    if (failed instanceof OutputFailed && failed.fd === 1) {
      try {
        writeSync(2, `error: ${failed.message}\n`);
      } catch {
        // stderr gone too: the exit code says it
      }
    } else if (!(failed instanceof OutputClosed) && !(failed instanceof OutputFailed)) throw e;
    process.exit(1);
  });
}

/**
 * The reader of stdout or stderr went away (`fn | head -1`): not an error of the function's to
 * report (there is no one to read it); the process ends quietly with exit 1, as what it wrote
 * was not all read.
 */
export class OutputClosed extends Error {}

/**
 * Stdout or stderr could not be written for another reason (a full disk: ENOSPC, EIO): one line
 * naming the stream and the reason, exit 1, never a stack trace.
 */
export class OutputFailed extends Error {
  constructor(
    readonly fd: 1 | 2,
    readonly code: string,
  ) {
    super(
      `cannot write ${fd === 1 ? 'stdout' : 'stderr'} (${code}${code === 'ENOSPC' || code === 'EDQUOT' ? ': the disk or quota is full' : ''})`,
    );
  }
}

function closedOr(e: unknown, fd: 1 | 2): unknown {
  const code = (e as NodeJS.ErrnoException).code;
  if (code === 'EPIPE') return new OutputClosed('output closed by its reader');
  return typeof code === 'string' ? new OutputFailed(fd, code) : e;
}

/** What a writer waits on when a non-blocking pipe is full (Atomics.wait: a synchronous sleep). */
let pause: Int32Array | undefined;
/** writeNow's buffer (write's is outBuffer). */
let nowBuffer: Buffer | undefined;

/**
 * Writes text to fd 1 or 2 now, synchronously, for callers that write line by line (the CLI):
 * the process stream to a pipe keeps every piece in memory until the event loop runs (60k
 * finding lines: 50 MiB at the peak). A full non-blocking pipe (EAGAIN) is waited for, a
 * millisecond at a time, as a blocking pipe would be.
 */
export function writeNow(fd: 1 | 2, text: string): void {
  if (!nowBuffer || nowBuffer.length < text.length * 3) nowBuffer = Buffer.allocUnsafe(Math.max(text.length * 3, 1 << 16));
  const length = nowBuffer.write(text, 0, 'utf8');
  let off = 0;
  while (off < length) {
    try {
      off += writeSync(fd, nowBuffer, off, length - off);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EAGAIN') throw closedOr(e, fd);
      pause ??= new Int32Array(new SharedArrayBuffer(4));
      Atomics.wait(pause, 0, 0, 1);
    }
  }
}

/** The bundle's own options (kpt and kustomize pass none): a folder in place of stdin and stdout. */
interface BundleOptions {
  help: boolean;
  fnConfig?: string;
  source?: string;
  sink?: string;
}

/** node:util, for parseArgs: loaded when there are arguments (a public built-in's first require costs ~0.3 ms of a start). */
const nodeUtil = lazy(() => require('node:util') as typeof import('node:util'), 'node:util', import.meta.url);

function bundleOptions(argv: string[]): BundleOptions {
  // no arguments (how kpt and kustomize run a function): node's parseArgs is not even loaded
  if (argv.length === 0) return { help: false };
  const { values } = nodeUtil().parseArgs({
    args: argv,
    strict: true,
    allowPositionals: false,
    options: {
      help: { type: 'boolean', short: 'h' },
      'fn-config': { type: 'string' },
      source: { type: 'string' },
      sink: { type: 'string' },
    },
  });
  return { help: values.help === true, fnConfig: values['fn-config'], source: values.source, sink: values.sink };
}

/** The input: stdin, or a ResourceList of the --source folder (with --fn-config as its functionConfig). */
async function readBundleInput(
  o: BundleOptions,
): Promise<{ input: string | Buffer; sourced: PackageFile[]; documentLines?: Map<string, number> }> {
  if (o.source === undefined) {
    if (o.fnConfig !== undefined) throw new KrmError('--fn-config needs --source: on stdin the functionConfig is part of the ResourceList');
    return { input: await readStdin(), sourced: [] };
  }
  const fnConfig = o.fnConfig === undefined ? undefined : readConfigFile(o.fnConfig);
  if (!existsSync(o.source) || !statSync(o.source).isDirectory()) throw new KrmError(`--source ${o.source}: not a folder`);
  const sourced = packageFiles(o.source);
  const documentLines = new Map<string, number>();
  return { input: sourceResourceList(sourced, fnConfig, documentLines), sourced, documentLines };
}

/** Each sourced item's document line in its file (KubeObject.fileLine). */
function placeInFiles(items: readonly KubeObject[], documentLines: ReadonlyMap<string, number>): void {
  for (const o of items) {
    const f = o.file();
    if (f?.index !== undefined) o.fileLine = documentLines.get(documentKey(f.path, f.index)) ?? null;
  }
}

function readConfigFile(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (e) {
    throw new KrmError(`--fn-config ${path}: cannot read it (${(e as NodeJS.ErrnoException).code ?? 'error'})`);
  }
}

/**
 * `fn.AsMain`: the process entry point of a function bundle. The process ends when the output is
 * written (synchronously, or awaited): a natural exit would first tear V8's heap down page by
 * page (an munmap, madvise or mprotect each, with their TLB flushes), 3-8% of a run's CPU with a
 * 50-60 MiB heap, more in a VM, for nothing the process still needs.
 */
export async function main<Spec>(def: FunctionDefinition<Spec>): Promise<void> {
  await runBundle(def);
  process.exit();
}

async function runBundle<Spec>(def: FunctionDefinition<Spec>): Promise<void> {
  let opts: BundleOptions;
  try {
    opts = bundleOptions(process.argv.slice(2));
  } catch (e) {
    await write(2, [`${def.name}: error: ${(e as Error).message} (see --help)\n`]);
    process.exitCode = 2;
    return;
  }
  if (opts.help) {
    await write(1, [helpText(def) + '\n']);
    return;
  }
  try {
    let input: string | Buffer;
    let sourced: PackageFile[];
    let documentLines: Map<string, number> | undefined;
    try {
      ({ input, sourced, documentLines } = await readBundleInput(opts));
    } catch (e) {
      if (!(e instanceof KrmError)) throw e;
      await write(2, [`${def.name}: error: ${e.message} [input]\n`]);
      process.exitCode = 1;
      return;
    }
    let r: RunOutput;
    try {
      r = await runFunction(def, input, process.env, documentLines);
    } catch (e) {
      // a bug: stdout gets the input as it came, nothing lost or half-written (no --sink is written)
      if (opts.sink === undefined && typeof input === 'string') await write(1, [input]);
      throw e;
    }
    if (opts.sink === undefined) {
      await write(1, r.chunks);
      if (r.stderr) await write(2, [r.stderr]);
      process.exitCode = r.exitCode;
    } else process.exitCode = Math.max(r.exitCode, await sinkOutput(def.name, opts, r, sourced));
  } catch (e) {
    process.exitCode = 1;
    if (e instanceof OutputClosed) return;
    if (e instanceof OutputFailed) {
      if (e.fd === 1) await write(2, [`${def.name}: error: ${e.message}\n`]).catch(() => undefined);
      return;
    }
    const missing = missingInstallFile(e);
    if (missing) {
      await write(2, [`${def.name}: error: ${missing}\n`]).catch(() => undefined);
      process.exitCode = 2;
      return;
    }
    await write(2, [`${def.name}: internal error: ${redactText((e as Error).stack ?? String(e))}\n`]).catch(() => undefined);
  }
}
