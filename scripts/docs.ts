/**
 * `npm run docs`: brings the generated parts of each function's README up to date (test/docs.test.ts
 * checks that they are):
 *   - the functionConfig field table, between `<!-- BEGIN GENERATED FIELDS -->` and
 *     `<!-- END GENERATED FIELDS -->`, from the function's definition (its spec schema, the one
 *     --help prints), so that the docs cannot drift from the schema;
 *   - the Examples list, between `<!-- BEGIN GENERATED EXAMPLES -->` and
 *     `<!-- END GENERATED EXAMPLES -->`: one entry per kpt package `examples/<function>/<case>/`
 *     (its name linked, the first paragraph of its README, how to run it), from the package's
 *     README, Kptfile and `.expected/config.yaml` (what test/examples/examples.e2e.test.ts runs).
 *
 * Every function README follows one template (test/docs.test.ts checks the order): `## Overview`
 * (what it does, then "Try it"), `## Usage`, `## FunctionConfig`, `## Examples`, then the
 * function's reference sections.
 */
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, posix } from 'node:path';
import { parse } from 'yaml';
import { definition as bmhFromRedfish } from '../functions/bmh-from-redfish/function.js';
import { definition as intentValidate } from '../functions/intent-validate/function.js';
import { definition as phasePlanExpand } from '../functions/phase-plan-expand/function.js';
import { definition as siteFromCatalogue } from '../functions/site-from-catalogue/function.js';
import { schemaMarkdown, type JsonSchema } from '../src/krm/index.js';

/** Each function's definition: the one source of its --help and its README's field table. */
const DEFINITIONS: Record<string, { specSchema: JsonSchema }> = {
  'bmh-from-redfish': bmhFromRedfish,
  'intent-validate': intentValidate,
  'phase-plan-expand': phasePlanExpand,
  'site-from-catalogue': siteFromCatalogue,
};

/** The sections every function README starts with, in this order (its reference sections follow). */
export const TEMPLATE_SECTIONS = ['Overview', 'Usage', 'FunctionConfig', 'Examples'] as const;

export const BEGIN = '<!-- BEGIN GENERATED FIELDS -->';
export const END = '<!-- END GENERATED FIELDS -->';
export const BEGIN_EXAMPLES = '<!-- BEGIN GENERATED EXAMPLES -->';
export const END_EXAMPLES = '<!-- END GENERATED EXAMPLES -->';
const REPO_GIT = 'https://github.com/baremetal-krm/baremetal-krm.git';
const root = join(import.meta.dirname, '..');
const version = (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string }).version;

/** `text` with what lies between the `begin` and `end` markers replaced (undefined without them). */
function replaceBetween(text: string, begin: string, end: string, content: string): string | undefined {
  const b = text.indexOf(begin);
  const e = text.indexOf(end);
  if (b < 0 || e < b) return undefined;
  return `${text.slice(0, b + begin.length)}\n${content}\n${text.slice(e)}`;
}

/** What `.expected/config.yaml` tells examples.e2e.test.ts to run on an example package. */
interface ExampleConfig {
  testType: 'render' | 'eval';
  kustomize?: boolean;
  fnConfig?: string;
  target?: string;
}

/** The example packages of a function: `examples/<fn>/<case>/` folders, sorted. */
export function exampleCases(fn: string): string[] {
  const dir = join(root, 'examples', fn);
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true })
    .filter((e) => e.isDirectory())
    .map((e) => e.name)
    .sort();
}

/** Relative Markdown links of an example's README, made relative to the function's README. */
function relinked(text: string, fn: string, name: string): string {
  return text.replace(/\]\(([^)\s]+)\)/g, (whole, target: string) =>
    /^([a-z]+:|#|\/)/.test(target) ? whole : `](${posix.join('../../examples', fn, name, target)})`,
  );
}

/**
 * The first paragraph of an example's README (after its title), and, when that paragraph ends with
 * a colon, the block it introduces (a quoted finding, a list).
 */
export function firstParagraph(readme: string): string {
  const lines = readme.split('\n');
  let i = lines.findIndex((l) => l.startsWith('# ')) + 1;
  while (i < lines.length && !lines[i]!.trim()) i++;
  const out: string[] = [];
  const take = (): void => {
    let fenced = false;
    for (; i < lines.length && (fenced || lines[i]!.trim()); i++) {
      if (lines[i]!.startsWith('```')) fenced = !fenced;
      out.push(lines[i]!);
    }
  };
  take();
  if (out.at(-1)?.trimEnd().endsWith(':')) {
    while (i < lines.length && !lines[i]!.trim()) i++;
    out.push('');
    take();
  }
  return out.join('\n');
}

/** The functionConfig file the example's Kptfile names for this function (render examples). */
function kptfileConfigPath(pkg: string): string | undefined {
  const file = join(pkg, 'Kptfile');
  if (!existsSync(file)) return undefined;
  const kptfile = parse(readFileSync(file, 'utf8')) as { pipeline?: Record<string, { configPath?: string }[]> };
  for (const step of Object.values(kptfile.pipeline ?? {}).flat()) if (step?.configPath) return step.configPath;
  return undefined;
}

/** How to run one example: fetched with kpt (the image), and from a checkout (exec form, kustomize). */
function runCommands(fn: string, name: string, config: ExampleConfig): string[] {
  const image = `${(parse(readFileSync(join(root, 'functions', fn, 'metadata.yaml'), 'utf8')) as { image: string }).image}:v${version}`;
  const path = `examples/${fn}/${name}`;
  const lines = [`kpt pkg get ${REPO_GIT}/${path} ${name}`];
  if (config.testType === 'eval') {
    lines.push(`kpt fn eval ${name}/${config.target} --image ${image} --fn-config ${name}/${config.fnConfig}`);
    return lines;
  }
  lines.push(`kpt fn render ${name}                     # the Kptfile's image, ${image}`);
  lines.push('', '# from a checkout of this repository (npm run build): prints the result, changes nothing');
  const configPath = kptfileConfigPath(join(root, path));
  if (configPath) lines.push(`kpt fn eval --exec ./dist/${fn}.cjs --fn-config ${path}/${configPath} ${path} -o unwrap`);
  if (config.kustomize)
    lines.push(
      '# kustomize with the container functions (test/e2e/bin holds a docker -> podman shim; drop it where Docker runs)',
      `PATH="$PWD/test/e2e/bin:$PATH" kubectl kustomize --enable-alpha-plugins ${path}`,
    );
  return lines;
}

/** One entry of the generated Examples list. */
function exampleEntry(fn: string, name: string): string {
  const pkg = join(root, 'examples', fn, name);
  const link = `../../examples/${fn}/${name}/`;
  const readme = existsSync(join(pkg, 'README.md')) ? readFileSync(join(pkg, 'README.md'), 'utf8') : '';
  const configFile = join(pkg, '.expected/config.yaml');
  const config = existsSync(configFile) ? (parse(readFileSync(configFile, 'utf8')) as ExampleConfig) : undefined;
  const parts = [`### [${name}](${link})`, ''];
  if (readme) parts.push(relinked(firstParagraph(readme), fn, name), '');
  if (config) parts.push('```sh', ...runCommands(fn, name, config), '```', '');
  parts.push(`Expected output in [\`.expected/\`](${link}.expected/); more in [its README](${link}README.md).`);
  return parts.join('\n');
}

/** The generated Examples list of a function: one entry per example package. */
export function examplesMarkdown(fn: string): string {
  const cases = exampleCases(fn);
  if (cases.length === 0) return `No example packages under \`examples/${fn}/\` yet.`;
  return cases.map((name) => exampleEntry(fn, name)).join('\n\n');
}

/** The README with its generated sections brought up to date (or undefined without the markers). */
export function renderReadme(fn: string): { path: string; current: string; wanted: string } | undefined {
  const path = join(root, 'functions', fn, 'README.md');
  const def = DEFINITIONS[fn];
  if (!existsSync(path) || !def) return undefined;
  const current = readFileSync(path, 'utf8');
  const withFields = replaceBetween(current, BEGIN, END, schemaMarkdown(def.specSchema));
  const wanted = withFields && replaceBetween(withFields, BEGIN_EXAMPLES, END_EXAMPLES, examplesMarkdown(fn));
  return wanted === undefined ? undefined : { path, current, wanted };
}

export function functionNames(): string[] {
  return readdirSync(join(root, 'functions'))
    .filter((f) => existsSync(join(root, 'functions', f, 'main.ts')))
    .sort();
}

if (process.argv[1] && import.meta.filename === process.argv[1]) {
  for (const fn of functionNames()) {
    const r = renderReadme(fn);
    if (!r) {
      console.log(`${fn}: missing generated-section markers (fields or examples)`);
      continue;
    }
    if (r.current !== r.wanted) writeFileSync(r.path, r.wanted);
    console.log(`${fn}: ${r.current === r.wanted ? 'up to date' : 'updated'}`);
  }
}
