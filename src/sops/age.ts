/**
 * The age layer of SOPS (getsops/sops age/keysource.go): the 32-byte data key is encrypted for
 * each recipient separately and stored ASCII-armored in `sops.age[].enc`. age itself is the
 * `age-encryption` package (the reference TypeScript implementation), loaded on first use: in
 * the bundle it rides as a string (scripts/build.mjs), so a run that encrypts nothing pays nothing.
 */
import { readFileSync } from 'node:fs';
import { pushAll } from '../krm/index.js';

type AgeLib = typeof import('age-encryption');
let ageLib: Promise<AgeLib> | undefined;

/** `age-encryption` (ESM only): `require` inside the bundle, `import()` under tsx/vitest. */
function age(): Promise<AgeLib> {
  ageLib ??= typeof require === 'function' ? Promise.resolve(require('age-encryption') as AgeLib) : import('age-encryption');
  return ageLib;
}

export interface AgeKey {
  recipient: string;
  enc: string;
}

/** X25519 (`age1` + 58 bech32 characters) and post-quantum hybrid (`age1pq1...`) recipients. */
const RECIPIENT = /^age1(pq1)?[02-9ac-hj-np-z]{58,}$/;

export function isAgeRecipient(s: string): boolean {
  return RECIPIENT.test(s);
}

/** The data key encrypted for each recipient, in the given order (as `sops --age a,b` writes them). */
export async function wrapDataKey(dataKey: Uint8Array, recipients: readonly string[]): Promise<AgeKey[]> {
  const lib = await age();
  const out: AgeKey[] = [];
  for (const recipient of recipients) {
    const e = new lib.Encrypter();
    e.addRecipient(recipient);
    out.push({ recipient, enc: lib.armor.encode(await e.encrypt(dataKey)) });
  }
  return out;
}

/** The data key, from the first `sops.age` entry one of the identities opens; undefined if none does. */
export async function unwrapDataKey(keys: readonly AgeKey[], identities: readonly string[]): Promise<Uint8Array | undefined> {
  if (identities.length === 0) return undefined;
  const lib = await age();
  for (const k of keys) {
    const d = new lib.Decrypter();
    for (const id of identities) d.addIdentity(id);
    try {
      const key = await d.decrypt(lib.armor.decode(k.enc));
      if (key.length === 32) return key;
    } catch {
      // not for these identities (or damaged): try the next recipient's copy
    }
  }
  return undefined;
}

/** The recipient of an identity (`AGE-SECRET-KEY-1...` -> `age1...`). */
export async function recipientOf(identity: string): Promise<string> {
  return (await age()).identityToRecipient(identity);
}

/** A new X25519 identity (tests, demos). */
export async function newIdentity(): Promise<string> {
  return (await age()).generateX25519Identity();
}

/** `AGE-SECRET-KEY-...` lines of an age key file (comments and blank lines skipped). */
export function parseIdentities(text: string): string[] {
  return text
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter((l) => l.startsWith('AGE-SECRET-KEY-'));
}

/**
 * The age identities SOPS would use from the environment: `SOPS_AGE_KEY` (keys inline) and
 * `SOPS_AGE_KEY_FILE` (a key file). Only these two: a function's behaviour must not depend on
 * the home folder it happens to run in. A file that cannot be read is an error naming it.
 */
export function identitiesFromEnv(env: Record<string, string | undefined>): string[] {
  const ids = parseIdentities(env.SOPS_AGE_KEY ?? '');
  const file = env.SOPS_AGE_KEY_FILE;
  if (file) {
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch (e) {
      throw new Error(`SOPS_AGE_KEY_FILE ${file} cannot be read (${(e as NodeJS.ErrnoException).code ?? 'error'})`);
    }
    pushAll(ids, parseIdentities(text));
  }
  return ids;
}
