/**
 * The one home of redaction, what no output channel prints: values under credential-like keys,
 * PEM private keys, sops `ENC[...]` values and the `user:password@` part of URLs. The report
 * uses it today; every other channel is to follow.
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
