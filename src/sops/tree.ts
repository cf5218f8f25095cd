/**
 * The SOPS tree format, as getsops/sops writes and reads it (sops.go, aes/cipher.go): every
 * leaf value that the file's crypt rule selects is AES-256-GCM encrypted with the file's data
 * key, a 32-byte random IV and the value's path (`data:password:`) as additional data, and
 * written `ENC[AES256_GCM,data:<b64>,iv:<b64>,tag:<b64>,type:<str|int|float|bool>]`. The MAC is
 * the upper-case hex SHA-512 over every plaintext leaf in document order (only the encrypted
 * ones with `mac_only_encrypted`), itself encrypted with `lastmodified` as additional data.
 * Keys stay in clear; sequences do not add to the path; `null` leaves are neither hashed nor
 * encrypted; the empty string encrypts to the empty string.
 */
import { isRecord, lazy } from '../krm/index.js';

const nodeCrypto = lazy(() => require('node:crypto') as typeof import('node:crypto'), 'node:crypto', import.meta.url);

export type SopsScalar = string | number | boolean;

/** Which leaves are encrypted: at most one of the four selectors, as SOPS allows. */
export interface CryptRules {
  unencryptedSuffix?: string;
  encryptedSuffix?: string;
  unencryptedRegex?: string;
  encryptedRegex?: string;
  macOnlyEncrypted?: boolean;
}

/** SOPS's default when a file names no selector (stores.Metadata.ToInternal). */
export const DEFAULT_UNENCRYPTED_SUFFIX = '_unencrypted';

/** `echo -n sops | sha256sum`: the MAC's first bytes with mac_only_encrypted (sops.go MACOnlyEncryptedInitialization). */
const MAC_ONLY_ENCRYPTED_INIT = Buffer.from('8a3fd2ad54ce66527b1034f3d147be0b0b975b3bf44f72c6fdadec8176f27d69', 'hex');

const IV_BYTES = 32;
const TAG_BYTES = 16;
const ENC_VALUE = /^ENC\[AES256_GCM,data:(.+),iv:(.+),tag:(.+),type:(.+)\]/;

export class SopsError extends Error {}

/** Whether a value is SOPS ciphertext (`ENC[AES256_GCM,...]`). */
export function isEncryptedValue(v: unknown): boolean {
  return typeof v === 'string' && ENC_VALUE.test(v);
}

/** Go's strconv.FormatFloat(f, 'f', -1, 64): the shortest digits, never an exponent. */
export function goFloatText(n: number): string {
  if (Object.is(n, -0)) return '-0'; // String(-0) is "0"
  const s = String(n);
  const m = /^(-?)(\d+)(?:\.(\d+))?e([+-]\d+)$/.exec(s);
  if (!m) return s;
  const [, sign, int, frac = '', expText] = m;
  const exp = Number(expText);
  const digits = int! + frac;
  const point = int!.length + exp;
  if (point <= 0) return `${sign}0.${'0'.repeat(-point)}${digits}`;
  if (point >= digits.length) return `${sign}${digits}${'0'.repeat(point - digits.length)}`;
  return `${sign}${digits.slice(0, point)}.${digits.slice(point)}`;
}

/** sops.ToBytes: what a leaf contributes to the MAC. */
export function leafBytes(v: SopsScalar): Buffer {
  if (typeof v === 'string') return Buffer.from(v, 'utf8');
  if (typeof v === 'boolean') return Buffer.from(v ? 'True' : 'False');
  return Buffer.from(isGoInt(v) ? String(v) : goFloatText(v));
}

function typeOf(v: SopsScalar): { type: string; text: string } {
  if (typeof v === 'string') return { type: 'str', text: v };
  if (typeof v === 'boolean') return { type: 'bool', text: v ? 'True' : 'False' };
  return isGoInt(v) ? { type: 'int', text: String(v) } : { type: 'float', text: goFloatText(v) };
}

/** A number Go holds as an int: integral, and not negative zero (only a float has one). */
function isGoInt(v: number): boolean {
  return Number.isInteger(v) && !Object.is(v, -0);
}

/** aes.Cipher.Encrypt. `iv` only for tests and for keeping an IV SOPS-style. */
export function encryptValue(value: SopsScalar, key: Uint8Array, additionalData: string, iv?: Uint8Array): string {
  if (value === '') return '';
  const { type, text } = typeOf(value);
  const nonce = iv ?? nodeCrypto().randomBytes(IV_BYTES);
  const cipher = nodeCrypto().createCipheriv('aes-256-gcm', key, nonce, { authTagLength: TAG_BYTES });
  cipher.setAAD(Buffer.from(additionalData, 'utf8'));
  const data = Buffer.concat([cipher.update(text, 'utf8'), cipher.final()]);
  const b64 = (b: Uint8Array): string => Buffer.from(b).toString('base64');
  return `ENC[AES256_GCM,data:${b64(data)},iv:${b64(nonce)},tag:${b64(cipher.getAuthTag())},type:${type}]`;
}

/** aes.Cipher.Decrypt: throws SopsError (never quoting the value) when the key or path is wrong. */
export function decryptValue(value: string, key: Uint8Array, additionalData: string): SopsScalar {
  if (value === '') return '';
  const m = ENC_VALUE.exec(value);
  if (!m) throw new SopsError('not a SOPS value (ENC[AES256_GCM,...])');
  const [, data, iv, tag, type] = m as unknown as [string, string, string, string, string];
  let text: string;
  try {
    const nonce = Buffer.from(iv, 'base64');
    const d = nodeCrypto().createDecipheriv('aes-256-gcm', key, nonce, { authTagLength: TAG_BYTES });
    d.setAAD(Buffer.from(additionalData, 'utf8'));
    d.setAuthTag(Buffer.from(tag, 'base64'));
    text = Buffer.concat([d.update(Buffer.from(data, 'base64')), d.final()]).toString('utf8');
  } catch {
    throw new SopsError(`cannot decrypt the value at ${additionalData} (wrong data key, or the value was moved or altered)`);
  }
  switch (type) {
    case 'str':
    case 'bytes':
    case 'comment':
      return text;
    case 'int':
    case 'int64':
    case 'float':
      return Number(text);
    case 'bool':
      return ['1', 't', 'T', 'TRUE', 'true', 'True'].includes(text);
    default:
      throw new SopsError(`unknown SOPS value type "${type}" at ${additionalData}`);
  }
}

/** sops.Tree.shouldBeEncrypted for a leaf's path (map keys from the document root). */
export function shouldEncrypt(path: readonly string[], rules: CryptRules): boolean {
  const r = effectiveRules(rules);
  let encrypted = true;
  if (r.unencryptedSuffix && path.some((p) => p.endsWith(r.unencryptedSuffix!))) encrypted = false;
  if (r.encryptedSuffix) encrypted = path.some((p) => p.endsWith(r.encryptedSuffix!));
  if (r.unencryptedRegex && path.some((p) => new RegExp(r.unencryptedRegex!).test(p))) encrypted = false;
  if (r.encryptedRegex) encrypted = path.some((p) => new RegExp(r.encryptedRegex!).test(p));
  return encrypted;
}

/** The rules SOPS applies: its default unencrypted suffix when none is given, an error for two. */
export function effectiveRules(rules: CryptRules): CryptRules {
  const given = (['unencryptedSuffix', 'encryptedSuffix', 'unencryptedRegex', 'encryptedRegex'] as const).filter((k) => rules[k]);
  if (given.length > 1)
    throw new SopsError('use only one of encrypted_suffix, unencrypted_suffix, encrypted_regex or unencrypted_regex (as SOPS)');
  return given.length ? rules : { ...rules, unencryptedSuffix: DEFAULT_UNENCRYPTED_SUFFIX };
}

type Leaf = (value: SopsScalar, path: readonly string[]) => unknown;

/** Walks a document (without its `sops` key) in order, replacing each scalar leaf by `leaf`'s result. */
function walk(node: unknown, path: string[], leaf: Leaf): unknown {
  if (node === null || node === undefined) return node;
  if (Array.isArray(node)) return node.map((v) => walk(v, path, leaf));
  if (isRecord(node)) {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(node)) out[k] = walk(v, [...path, k], leaf);
    return out;
  }
  if (typeof node === 'string' || typeof node === 'number' || typeof node === 'boolean') return leaf(node, path);
  throw new SopsError(`cannot encrypt a value of type ${typeof node} at ${path.join('.')}`);
}

function withoutSops(doc: Record<string, unknown>): Record<string, unknown> {
  const { sops: _sops, ...rest } = doc;
  return rest;
}

function newMacHash(rules: CryptRules): import('node:crypto').Hash {
  const h = nodeCrypto().createHash('sha512');
  if (rules.macOnlyEncrypted) h.update(MAC_ONLY_ENCRYPTED_INIT);
  return h;
}

/** sops.Tree.Encrypt: the document with its selected leaves encrypted, and the plaintext MAC. */
export function encryptTree(
  doc: Record<string, unknown>,
  key: Uint8Array,
  rules: CryptRules,
  ivFor?: (path: readonly string[], value: SopsScalar) => Uint8Array | undefined,
): { doc: Record<string, unknown>; mac: string } {
  const hash = newMacHash(rules);
  const out = walk(withoutSops(doc), [], (value, path) => {
    const encrypted = shouldEncrypt(path, rules);
    if (!rules.macOnlyEncrypted || encrypted) hash.update(leafBytes(value));
    return encrypted ? encryptValue(value, key, `${path.join(':')}:`, ivFor?.(path, value)) : value;
  }) as Record<string, unknown>;
  return { doc: out, mac: hash.digest('hex').toUpperCase() };
}

/** sops.Tree.Decrypt: the plaintext document (no `sops` key) and the MAC computed over it. */
export function decryptTree(
  doc: Record<string, unknown>,
  key: Uint8Array,
  rules: CryptRules,
): { doc: Record<string, unknown>; mac: string } {
  const hash = newMacHash(rules);
  const out = walk(withoutSops(doc), [], (value, path) => {
    const encrypted = shouldEncrypt(path, rules);
    const plain = encrypted ? decryptValue(String(value), key, `${path.join(':')}:`) : value;
    if (!rules.macOnlyEncrypted || encrypted) hash.update(leafBytes(plain));
    return plain;
  }) as Record<string, unknown>;
  return { doc: out, mac: hash.digest('hex').toUpperCase() };
}
