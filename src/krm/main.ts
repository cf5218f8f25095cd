/**
 * The entry point every function shares (like kpt's `fn.AsMain`): read the input, check the
 * functionConfig against the function's schema, run, write the ResourceList, exit 1 on error
 * results. Output is always written, even when the function fails, and logs go to stderr.
 */
import { readFileSync, writeSync } from 'node:fs';
import { KrmError, type KubeObject } from './kube-object.js';
import { Context } from './context.js';
import { readInput, writeOutput, type ParsedInput } from './resource-list.js';
import { formatResult, Results, type Result } from './results.js';
import { schemaReference, type JsonSchema } from './schema-doc.js';

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
  output: string;
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

/** Runs a function on input text, in process. Never throws for bad input. */
export async function runFunction<Spec>(
  def: FunctionDefinition<Spec>,
  input: string,
  env: Record<string, string | undefined> = {},
): Promise<RunOutput> {
  const results = new Results();
  let parsed: ParsedInput;
  try {
    parsed = readInput(input);
  } catch (e) {
    if (!(e instanceof KrmError)) throw e;
    results.error(e.message, { rule: 'input' });
    // nothing could be read: echo a ResourceList with the result so tools show it
    const empty: ParsedInput = { format: 'list', items: [], sections: [], seqIndent: 0 };
    const output = 'apiVersion: config.kubernetes.io/v1\nkind: ResourceList\n' + writeOutput(empty, [], results.list);
    return finish(output, results.list);
  }
  const spec = readSpec<Spec>(def, parsed.functionConfig, results);
  let items = parsed.items;
  let internal = '';
  if (spec !== undefined) {
    const ctx = new Context<Spec>([...parsed.items], spec, parsed.functionConfig, env);
    try {
      await def.run(ctx);
      items = [...ctx.items];
    } catch (e) {
      // nothing half-written: the input items go out as they came in
      items = parsed.items;
      if (e instanceof KrmError) ctx.results.error(e.message, { rule: 'input' });
      else {
        ctx.results.error(`internal error in ${def.name}: ${(e as Error).message} (please report this)`, { rule: 'internal' });
        internal = (e as Error).stack ?? String(e);
      }
    }
    results.list.push(...ctx.results.list);
  }
  let reportOnly = '';
  if (parsed.functionConfig?.annotations[REPORT_ONLY] === 'true') {
    const errors = results.list.filter((r) => r.severity === 'error');
    for (const r of errors) r.severity = 'warning';
    reportOnly = `report-only: ${errors.length} error(s) reported as warnings; ${writtenSummary(parsed.items, items)}\n`;
  }
  const out = finish(writeOutput(parsed, items, results.list), results.list);
  // report-only keeps the exit code 0 whatever happened: say what the output holds
  out.stderr += reportOnly;
  if (internal) out.stderr += internal + '\n';
  return out;
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

function finish(output: string, results: Result[]): RunOutput {
  const errors = results.filter((r) => r.severity === 'error');
  const warnings = results.filter((r) => r.severity === 'warning');
  let stderr = '';
  for (const r of errors) stderr += formatResult(r) + '\n';
  if (errors.length || warnings.length)
    stderr += `${errors.length} error(s), ${warnings.length} warning(s), ${results.length - errors.length - warnings.length} info\n`;
  return { output, exitCode: errors.length > 0 ? 1 : 0, results, stderr };
}

export function helpText<Spec>(def: FunctionDefinition<Spec>): string {
  return [
    `${def.name}: ${def.summary}`,
    '',
    'Usage:',
    `  kpt fn eval --exec ./dist/${def.name}.cjs --fn-config config.yaml <pkg>`,
    `  kpt fn render <pkg>            # Kptfile pipeline: exec: or image: baremetal-krm/${def.name}`,
    `  kustomize build --enable-alpha-plugins <dir>   # container function, see README`,
    `  cat resources.yaml | node dist/${def.name}.cjs  # a ResourceList or plain YAML stream on stdin`,
    '',
    `functionConfig: apiVersion ${API_VERSION}, kind ${def.configKind}${def.fromConfigMap ? ' (or a v1 ConfigMap with data:)' : ''}; no spec = defaults.`,
    '',
    'spec fields:',
    schemaReference(def.specSchema, '  '),
    def.moreHelp ? '\n' + def.moreHelp : '',
  ].join('\n');
}

/**
 * Reads stdin. Synchronous reads avoid loading Node's stream machinery, which costs more than
 * the rest of a small run; a non-blocking stdin (EAGAIN) falls back to the stream.
 */
async function readStdin(): Promise<string> {
  try {
    return readFileSync(0, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EAGAIN') throw e;
  }
  const chunks: Buffer[] = [];
  for await (const c of process.stdin) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** Writes to fd 1 or 2 synchronously; falls back to the process stream on EAGAIN. */
async function write(fd: 1 | 2, text: string): Promise<void> {
  const buf = Buffer.from(text, 'utf8');
  let off = 0;
  try {
    while (off < buf.length) off += writeSync(fd, buf, off, buf.length - off);
    return;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EAGAIN') throw e;
  }
  const stream = fd === 1 ? process.stdout : process.stderr;
  await new Promise<void>((resolve) => {
    if (stream.write(buf.subarray(off))) resolve();
    else stream.once('drain', resolve);
  });
}

/** `fn.AsMain`: the process entry point of a function bundle. */
export async function main<Spec>(def: FunctionDefinition<Spec>): Promise<void> {
  const args = process.argv.slice(2);
  if (args.includes('--help') || args.includes('-h')) {
    await write(1, helpText(def) + '\n');
    return;
  }
  try {
    const input = await readStdin();
    const r = await runFunction(def, input, process.env);
    await write(1, r.output);
    if (r.stderr) await write(2, r.stderr);
    process.exitCode = r.exitCode;
  } catch (e) {
    await write(2, `${def.name}: internal error: ${(e as Error).stack ?? String(e)}\n`);
    process.exitCode = 1;
  }
}
