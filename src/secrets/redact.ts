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

/** The forms a secret may be echoed in: as is, base64, base64url, URL-encoded and hex. */
export function secretForms(secret: string): string[] {
  const b = Buffer.from(secret, 'utf8');
  const forms = [secret];
  // encoded forms of a very short secret would match ordinary text (hex digits, short base64 runs)
  if (secret.length >= 4)
    forms.push(
      b.toString('base64'),
      b.toString('base64').replace(/=+$/, ''),
      b.toString('base64url'),
      encodeURIComponent(secret),
      b.toString('hex'),
    );
  return [...new Set(forms.filter((f) => f.length >= 2))].sort((x, y) => y.length - x.length);
}

/**
 * A function that replaces every form (secretForms) of every secret in use by `***`: the last
 * line of defence for text that came from a BMC or a peer (an error answer that echoes the
 * request's Authorization header or session token). Hex forms match in any case.
 */
export function secretScrubber(secrets: readonly string[]): (text: string) => string {
  const forms = [...new Set(secrets.filter(Boolean).flatMap(secretForms))].sort((x, y) => y.length - x.length);
  if (!forms.length) return (t) => t;
  const hex = forms.filter((f) => /^[0-9a-f]+$/.test(f) && f.length >= 8);
  const hexRe = hex.length ? new RegExp(hex.join('|'), 'gi') : undefined;
  return (text) => {
    let out = text;
    for (const f of forms) if (out.includes(f)) out = out.split(f).join('***');
    return hexRe ? out.replace(hexRe, '***') : out;
  };
}

/** `text` scrubbed of the secrets in use (see secretScrubber). */
export function scrubSecrets(text: string, secrets: readonly string[]): string {
  return secretScrubber(secrets)(text);
}

/** `secretScrubber` over every string of a JSON-like value (a copy; the value itself is left as is). */
export function scrubSecretsDeep<T>(value: T, secrets: readonly string[]): T {
  const scrub = secretScrubber(secrets);
  const walk = (v: unknown): unknown => {
    if (typeof v === 'string') return scrub(v);
    if (Array.isArray(v)) return v.map(walk);
    if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, walk(x)]));
    return v;
  };
  return walk(value) as T;
}
