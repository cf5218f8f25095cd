/**
 * The one home of redaction, what no output channel prints: values under credential-like keys,
 * PEM private keys, sops `ENC[...]` values, the `user:password@` part of URLs, and the
 * credentials in use in any form (plain, base64, base64url, URL-encoded, hex) in text that came
 * from elsewhere (a BMC's answers). The report and discovery use it; every other channel is to follow.
 */

/** Keys whose values are secrets (any depth, any type). Reference keys (`...Name`, `...Ref`,
 * `...Namespace`) only name where a secret lives and are not hidden. */
const SENSITIVE_KEY =
  /pass(word|wd|phrase)?s?$|passw(or)?d|secret|token|credential|api[-_]?key|access[-_]?key|private[-_]?key|secret[-_]?key|[-_.]key(-data)?$|^key$|username$/i;
const REFERENCE_KEY = /(?<!user)name$|ref$|namespace$/i;

export function isSensitiveKey(k: string): boolean {
  return SENSITIVE_KEY.test(k) && !REFERENCE_KEY.test(k);
}

const URL_CREDENTIALS = /\b([a-z][a-z0-9+.-]*:\/\/)[^\s/@]+@/gi;

/** `https://user:pw@host/x` -> `https://***@host/x` (user-only URLs keep the user). */
export function stripUrlCredentials(s: string): string {
  return s.replace(URL_CREDENTIALS, (m, scheme: string) => (m.slice(scheme.length, -1).includes(':') ? `${scheme}***@` : m));
}

/** The text shown for a string: `(set)` for key material, `(encrypted)` for sops, no URL credentials. */
export function redactString(s: string): { redacted: boolean; text: string } {
  if (s.includes('PRIVATE KEY')) return { redacted: true, text: '(set)' };
  if (s.trimStart().startsWith('ENC[')) return { redacted: true, text: '(encrypted)' };
  return { redacted: false, text: stripUrlCredentials(s) };
}

// ---- known values: the credentials of one run ------------------------------------------

/** What a known credential is replaced by. */
const MASK = '***';

/** Long and varied enough to scrub from any text without mangling it ("password", "8080" and "true" are not). */
function worthScrubbing(v: string): boolean {
  if (v.length < 6 || v.includes(MASK)) return false;
  if (/^[A-Za-z]+$/.test(v)) return v.length >= 12;
  if (/^[-+]?\d+$/.test(v)) return v.length >= 10;
  return true;
}

const HTML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** How a value may appear in output: as is, base64 (padded or not, URL-safe), URL-encoded, hex, JSON- and HTML-escaped. */
function encodings(v: string): string[] {
  const bytes = Buffer.from(v, 'utf8');
  const b64 = bytes.toString('base64');
  const hex = bytes.toString('hex');
  return [
    v,
    b64,
    b64.replace(/=+$/, ''),
    bytes.toString('base64url'),
    encodeURIComponent(v),
    hex,
    hex.toUpperCase(),
    JSON.stringify(v).slice(1, -1),
    v.replace(/[&<>"']/g, (c) => HTML_ESCAPES[c]!),
  ];
}

/**
 * The credentials of one run (here: those a BMC client used, its password, the Basic
 * credentials and the session tokens it was given), removed from every text it is given, in
 * every encoding `encodings` lists. Text that came from a BMC passes through `scrubKnown`.
 */
export class Redactor {
  readonly #known = new Set<string>();
  #pattern: RegExp | undefined;

  /** A credential: removed from every text from now on (too short or common values are ignored, see `worthScrubbing`). */
  add(value: unknown): this {
    const v = typeof value === 'string' ? value.trim() : typeof value === 'number' ? String(value) : undefined;
    if (v === undefined || !worthScrubbing(v) || this.#known.has(v)) return this;
    this.#known.add(v);
    this.#pattern = undefined;
    return this;
  }

  /** A user name and password in use: the password, and `user:password` (what Basic auth encodes). */
  addCredentials(username: string | undefined, password: unknown): this {
    this.add(password);
    if (username !== undefined && typeof password === 'string' && password !== '') this.add(`${username}:${password}`);
    return this;
  }

  /** `text` without any known credential, in any encoding: safe on any format (JSON, HTML, YAML), it only replaces values. */
  scrubKnown(text: string): string {
    if (this.#known.size === 0) return text;
    this.#pattern ??= new RegExp(
      [...new Set([...this.#known].flatMap(encodings))]
        .filter((f) => f.length >= 6)
        .sort((a, b) => b.length - a.length)
        .map((f) => f.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
        .join('|'),
      'g',
    );
    return text.replace(this.#pattern, MASK);
  }
}

/** Every string of a JSON-like value through `scrub` (a copy; the value itself is left as is). */
export function scrubStrings<T>(value: T, scrub: (text: string) => string): T {
  const walk = (v: unknown): unknown => {
    if (typeof v === 'string') return scrub(v);
    if (Array.isArray(v)) return v.map(walk);
    if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, walk(x)]));
    return v;
  };
  return walk(value) as T;
}
