/**
 * `.sops.yaml` creation rules, as `sops --encrypt` picks them: the first rule whose `path_regex`
 * matches the file's path relative to the folder of `.sops.yaml` (a rule without `path_regex`
 * matches every file) gives the age recipients and the crypt rule. The nearest `.sops.yaml`
 * upward from a folder is the one that applies (`SOPS_CONFIG` names another).
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { isRecord, loadYaml } from '../krm/index.js';
import type { CryptRules } from './tree.js';

export interface CreationRule {
  pathRegex?: string;
  age: string[];
  rules: CryptRules;
}

export class SopsConfigError extends Error {}

/** The nearest `.sops.yaml` (or `.sops.yml`) in `dir` or a folder above it. */
export function findSopsConfig(dir: string): string | undefined {
  let d = resolve(dir);
  for (;;) {
    for (const name of ['.sops.yaml', '.sops.yml']) if (existsSync(join(d, name))) return join(d, name);
    const up = dirname(d);
    if (up === d) return undefined;
    d = up;
  }
}

const list = (v: unknown): string[] =>
  (Array.isArray(v) ? v.map(String) : typeof v === 'string' ? v.split(',') : []).map((s) => s.trim()).filter(Boolean);

/** The creation rules of a `.sops.yaml` (age recipients from `age` and from `key_groups[].age`). */
export function parseSopsConfig(text: string, file: string): CreationRule[] {
  let doc: unknown;
  try {
    doc = loadYaml(text);
  } catch {
    throw new SopsConfigError(`${file} is not valid YAML`);
  }
  const rules = isRecord(doc) && Array.isArray(doc.creation_rules) ? doc.creation_rules : undefined;
  if (!rules) throw new SopsConfigError(`${file} has no creation_rules list`);
  return rules.map((r, i) => {
    if (!isRecord(r)) throw new SopsConfigError(`${file}: creation_rules[${i}] is not a map`);
    const age = [...list(r.age), ...(Array.isArray(r.key_groups) ? r.key_groups.flatMap((g) => (isRecord(g) ? list(g.age) : [])) : [])];
    const crypt: CryptRules = {};
    if (typeof r.encrypted_regex === 'string') crypt.encryptedRegex = r.encrypted_regex;
    if (typeof r.unencrypted_regex === 'string') crypt.unencryptedRegex = r.unencrypted_regex;
    if (typeof r.encrypted_suffix === 'string') crypt.encryptedSuffix = r.encrypted_suffix;
    if (typeof r.unencrypted_suffix === 'string') crypt.unencryptedSuffix = r.unencrypted_suffix;
    if (r.mac_only_encrypted === true) crypt.macOnlyEncrypted = true;
    const rule: CreationRule = { age, rules: crypt };
    if (typeof r.path_regex === 'string') rule.pathRegex = r.path_regex;
    return rule;
  });
}

/** The rule for a file path (relative to the `.sops.yaml` folder, `/`-separated), as sops picks it. */
export function ruleFor(rules: readonly CreationRule[], path: string): CreationRule | undefined {
  return rules.find((r) => r.pathRegex === undefined || new RegExp(r.pathRegex).test(path));
}

export function readSopsConfig(file: string): CreationRule[] {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    throw new SopsConfigError(`${file} cannot be read (${(e as NodeJS.ErrnoException).code ?? 'error'})`);
  }
  return parseSopsConfig(text, file);
}
