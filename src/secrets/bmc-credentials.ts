/**
 * Where BMC credentials come from, the one home for every function that needs them (discovery
 * asks the BMCs with them, site-from-catalogue encrypts them into SOPS Secrets): the environment
 * or a mounted credentials file, never Git. Lookup per host: the file's entry (by name, then by
 * address), env `BMC_<NAME>_USERNAME` / `_PASSWORD`, the file's `default`, env `BMC_USERNAME` /
 * `BMC_PASSWORD`. Errors name the file, never a value.
 */
import { readFileSync } from 'node:fs';
import { loadYaml } from '../krm/index.js';

export interface BmcCredentials {
  username: string;
  password: string;
}

/** `r750-01` -> `R750_01`, as in `BMC_R750_01_USERNAME`. */
export function envKey(name: string): string {
  return name.toUpperCase().replace(/[^A-Z0-9]+/g, '_');
}

export function credentialsFor(
  host: { name?: string; address?: string },
  env: Record<string, string | undefined>,
  file: Record<string, BmcCredentials> | undefined,
): BmcCredentials | undefined {
  const fromFile = file && (file[host.name ?? ''] ?? (host.address ? file[host.address] : undefined));
  if (fromFile) return fromFile;
  if (host.name) {
    const u = env[`BMC_${envKey(host.name)}_USERNAME`];
    const p = env[`BMC_${envKey(host.name)}_PASSWORD`];
    if (u && p !== undefined) return { username: u, password: p };
  }
  if (file?.default) return file.default;
  if (env.BMC_USERNAME && env.BMC_PASSWORD !== undefined) return { username: env.BMC_USERNAME, password: env.BMC_PASSWORD };
  return undefined;
}

/** A credentials file: `{default: {username, password}, <name or address>: {...}}` (YAML or JSON). */
export function readCredentialsFile(path: string): Record<string, BmcCredentials> {
  let doc: unknown;
  try {
    doc = loadYaml(readFileSync(path, 'utf8'));
  } catch (e) {
    // the message of a YAML error could quote the file: do not pass it on
    throw new Error(`credentials file ${path} cannot be read or parsed (${(e as NodeJS.ErrnoException).code ?? 'not YAML/JSON'})`);
  }
  const out: Record<string, BmcCredentials> = {};
  if (!doc || typeof doc !== 'object')
    throw new Error(`credentials file ${path}: expected a map {default: {username, password}, <name or address>: {...}}`);
  for (const [k, v] of Object.entries(doc as Record<string, unknown>)) {
    const e = v as { username?: unknown; password?: unknown };
    if (!e || typeof e.username !== 'string' || typeof e.password !== 'string')
      throw new Error(`credentials file ${path}: entry "${k}" needs string username and password`);
    out[k] = { username: e.username, password: e.password };
  }
  return out;
}
