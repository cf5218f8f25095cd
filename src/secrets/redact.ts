/**
 * The one home of redaction: which keys and values are credentials, how a value is described
 * without quoting it, and what every output channel (KRM results and stderr, runtime errors,
 * the `validate` CLI, the cross-site report in every format) scrubs before it prints.
 *
 * Three layers, all here:
 * - keys (keys.ts, re-exported here): `isCredentialKey` (a plaintext value under it is a finding: intent-validate's
 *   `encryption` rule) and `isSensitiveKey` (never shown: credentials and user names);
 *   `isSensitivePath` adds Secret `data`/`stringData` and env-style items (`{name: DB_PASSWORD, value}`);
 * - text: `redactText` scrubs credentials written inline (`password=...`, `--token x`,
 *   `Basic ...`, `user:pw@` in URLs, PEM private keys, sops `ENC[...]`); `redactValueText` also
 *   `key: value` lines of embedded files (properties, YAML, INI);
 * - known values: a `Redactor` holds the credentials of one run (from the environment, the
 *   input items, files the function read) and removes them, plain or encoded, from any text.
 */
import { isRecord } from '../krm/index.js';
import { CREDENTIAL_WORDS } from './credential-words.js';
import {
  IDENTITY_KEY,
  isCredentialEnvName,
  isCredentialKey,
  isNonCredentialSecretKey,
  isSensitiveKey,
  LAST_APPLIED,
  REFERENCE_KEY,
} from './keys.js';

export { isCredentialEnvName, isCredentialKey, isNonCredentialSecretKey, isSensitiveKey } from './keys.js';

/** A value as sops writes it: `ENC[AES256_GCM,data:<base64>,iv:<base64>,tag:<base64>,type:str]`, whole. */
const SOPS_CIPHERTEXT =
  /^ENC\[AES256_GCM,data:[A-Za-z0-9+/=]*,iv:[A-Za-z0-9+/=]+,tag:[A-Za-z0-9+/=]+,type:(?:str|int|float|bool|bytes|comment)\]$/;

/**
 * A sops-encrypted value: sops's ciphertext form, whole. Anything else that starts with `ENC[`
 * (`ENC[x] hunter2`, a value cut short) is plain text: nothing decrypts it, and whatever follows
 * the bracket is written to Git as it is.
 */
export function isSopsEncrypted(v: unknown): boolean {
  return typeof v === 'string' && v.startsWith('ENC[') && SOPS_CIPHERTEXT.test(v);
}

/**
 * Whether the value at `path` in an item's data is never quoted: anything under a Secret's
 * `data`/`stringData`, under a sensitive key at any depth, or in an env-style list item whose
 * `name` is sensitive (`env[name=MYSQL_PWD].value`, `envVars[name=BMC_PASSWORD]`).
 */
export function isSensitivePath(root: unknown, path: readonly (string | number)[]): boolean {
  // the values of a Secret's data, and `data:` itself when it is written as one scalar
  if (isRecord(root) && root.kind === 'Secret' && (path[0] === 'data' || path[0] === 'stringData')) return true;
  let node: unknown = root;
  for (let i = 0; i < path.length; i++) {
    const seg = path[i]!;
    if (typeof seg === 'string' && !/^\d+$/.test(seg) && isSensitiveKey(seg)) return true;
    const inList = Array.isArray(node);
    node = isRecord(node) || inList ? (node as Record<string | number, unknown>)[seg] : undefined;
    if (
      inList &&
      isRecord(node) &&
      typeof node.name === 'string' &&
      isSensitiveKey(node.name) &&
      i + 1 < path.length &&
      path[i + 1] !== 'name'
    )
      return true;
  }
  return false;
}

// ---- describing a value without quoting it ---------------------------------------------

/** `a number of 11 characters`, `a string of 4 characters`, `a list of 2 item(s)`: type and length, never the value. */
export function describeValue(v: unknown): string {
  if (v === null || v === undefined) return 'null';
  if (Array.isArray(v)) return `a list of ${v.length} item(s)`;
  if (typeof v === 'object') return 'a mapping';
  if (typeof v === 'boolean') return 'a boolean';
  const kind = typeof v === 'string' ? 'a string' : typeof v === 'number' ? 'a number' : `a ${typeof v}`;
  return `${kind} of ${String(v).length} character(s)`;
}

/** The value at `path` as a message may show it: JSON when harmless, type and length when sensitive. */
export function quoteValue(root: unknown, path: readonly (string | number)[] | undefined, v: unknown): string {
  if (path && isSensitivePath(root, path)) return describeValue(v);
  // JSON has no infinity or NaN (JSON.stringify writes null): as YAML writes them
  const shown =
    typeof v === 'number' && !Number.isFinite(v) ? (Number.isNaN(v) ? '.nan' : v > 0 ? '.inf' : '-.inf') : (JSON.stringify(v) ?? String(v));
  // a value that holds a credential written inline (`curl -u bob:pw`, a URL's user:password@,
  // an embedded file's password line) is described too, wherever it stands
  const text = typeof v === 'string' ? v : shown;
  return redactValueText(text) === text ? shown : describeValue(v);
}

// ---- credentials written inline in text ------------------------------------------------

const MASK = '***';
const PEM_PRIVATE_KEY = /-----BEGIN ([A-Z0-9 ]*)PRIVATE KEY-----[\s\S]*?(?:-----END \1PRIVATE KEY-----|$)/g;
const SOPS_VALUE = /ENC\[[A-Za-z0-9_]+,[^\]\s]*\]/g;
/**
 * `scheme://user:password@host`: the user information runs to the authority's last `@` (as URL
 * parsers, git and curl split it), so a password may hold an `@` (`https://git:p@ss@host`); it
 * ends at white space or the path's `/`.
 */
const URL_CREDENTIALS = /\b([a-z][a-z0-9+.-]*:\/\/)[^\s/]*@/gi;
/** `user:password@tcp(` (or unix, udp): a Go database DSN's credentials */
const DSN_CREDENTIALS = /(?<![\w/@:.%+-])[\w.%+-]+:[^\s@/]+@(?=(?:tcp|udp|unix)\()/g;
/** `Authorization: Basic <token>`: the token, when it looks like one (not "Basic authentication"). */
const AUTH_SCHEME = /\b(Basic|Bearer|Token|Digest|Negotiate)(\s+)([A-Za-z0-9+/=._~-]{6,})/g;
const AUTH_SCHEME_WORD = /Basic|Bearer|Token|Digest|Negotiate/i;
/**
 * The same where it can only be a credential, whatever it looks like: a whole value
 * (`Bearer PWBEARERA`) or an `Authorization:` header's value, to the end of its line or of the
 * quotes it stands in (`curl -H "Authorization: token x"`).
 */
const AUTH_HEADER = /(^|Authorization:[ \t]*)(Basic|Bearer|Token|Digest|Negotiate)([ \t]+)([A-Za-z0-9+/=._~-]{6,})(?=[ \t]*(?:$|["']))/gim;
/** `password=x`, `BMC_PASSWORD=x`, `db.password = x`, `--password=x`, `?token=x&` */
const ASSIGNMENT = /([A-Za-z_][\w.-]*)(\s*=\s*)("[^"]*"|'[^']*'|[^\s"'&;,]+)/g;
/**
 * Tools whose password flag is a letter, which alone says nothing elsewhere (`ssh -p 22` is a
 * port): the flag counts after the tool's name on the same line. `mysql -pX` only glued (`-p X`
 * asks for the password and names database X); curl's `-u user:password`, the part after `:`.
 */
const TOOL_PASSWORD =
  /((?<=\bipmitool\b[^\n]*?)\s-[Pky]\s*|\b(?:vault[ \t]+login(?:[ \t]+-\S+)*[ \t]+(?=[^\s"'=-][^\s"'=]*(?:\s|$))|racadm\b[^\n]*?\s-p|redis-cli\b[^\n]*?\s-a|ldap[a-z]*\b[^\n]*?\s-w|sshpass\b[^\n]*?\s-p|(?:docker|podman|buildah|helm(?:\s+registry)?)\s+login\b[^\n]*?\s-p|htpasswd\b[^\n]*?\s-\w*b\w*(?:\s+-\w+)*\s+\S+\s+\S+)\s*|\bsmbclient\b[^\n]*?\s-U\s*[^\s%]+%|\bmysql(?:dump|admin)?\b[^\n]*?\s-p|\bcurl\b[^\n]*?\s(?:-u|--user)[\s=]*[^\s:'"]+:)("[^"]*"|'[^']*'|[^\s"']+)/g;
/** The tools of TOOL_PASSWORD: the cheap test before it, and part of MAY_HOLD_INLINE's */
const TOOL_NAMES = /ipmitool|racadm|redis-cli|ldap|sshpass|mysql|curl|login|htpasswd|smbclient/;
/**
 * Tokens that say what they are by their form, wherever they stand: GitHub (`ghp_`, `github_pat_`),
 * GitLab (`glpat-`), Slack (`xoxb-`), a JWT (`eyJ...` in three parts), an AWS access key id
 * (`AKIA`/`ASIA` and 16 capitals or digits: with its secret key it signs anything the user may),
 * a Google API key (`AIza` and 35), an npm token (`npm_` and 36), a Stripe live key
 * (`sk_live_`, `rk_live_`), the secret path of a Slack or Discord webhook.
 */
const SHAPED_TOKEN =
  /\b(?:gh[pousr]_[A-Za-z0-9]{16,}|github_pat_[A-Za-z0-9_]{20,}|glpat-[A-Za-z0-9_-]{16,}|xox[abprs]-[A-Za-z0-9-]{8,}|eyJ[A-Za-z0-9_-]{4,}\.eyJ[A-Za-z0-9_-]{2,}\.[A-Za-z0-9_-]+|(?:AKIA|ASIA)[A-Z0-9]{16}\b|AIza[A-Za-z0-9_-]{35}|npm_[A-Za-z0-9]{36}\b|[sr]k_live_[A-Za-z0-9]{16,})|(?<=hooks\.slack\.com\/services\/|discord(?:app)?\.com\/api\/webhooks\/)[^\s"'?#]+/g;
const SHAPED_TOKEN_HINT = /gh[pousr]_|github_pat_|glpat-|xox[abprs]-|eyJ|AKIA|ASIA|AIza|npm_|k_live_|hooks\.slack|webhooks/;
/** A signed URL's signature or session token (S3, GCS, Azure SAS): whoever holds the URL holds the access */
const URL_SIGNATURE = /([?&](?:sig|signature|X-Amz-Signature|X-Amz-Security-Token|X-Goog-Signature|X-Goog-Credential)=)([^&\s"'#]+)/gi;
/** openssl's `pass:phrase` (`-passin pass:x`, `-passout pass:x`) */
const OPENSSL_PASS = /(?<![\w-])(pass:)([^\s"']+)/g;
/**
 * Installer files: kickstart's `rootpw [--plaintext] x`, a preseed's `d-i passwd/root-password
 * password x`, cloud-init's `chpasswd` list lines (`root:x`), a `name value` line whose name is
 * a credential (`bindpw x` in nslcd.conf).
 */
const KICKSTART_ROOTPW = /^([ \t]*rootpw(?:[ \t]+--\S+)*[ \t]+)(\S+)/gm;
const PRESEED_PASSWORD = /(\bpasswd\/\S+[ \t]+password[ \t]+)(\S+)/g;
const CHPASSWD_LINE = /^([ \t]*(?:-[ \t]*)?[a-z_][a-z0-9_.-]*:)(?![ \t])([^\s:]\S*)[ \t]*$/gm;
const NAME_SPACE_VALUE = /^([ \t]*([A-Za-z_][\w.-]*)[ \t]+)([^\s=:#][^\s]*)[ \t]*$/gm;
/** Whole-value key material that is not PEM: a PuTTY key file, an Ansible Vault blob */
const OTHER_KEY_FILE = /PuTTY-User-Key-File-\d+:|\$ANSIBLE_VAULT;/;
/** A Dockerfile's `ENV NAME value` or csh's `setenv NAME value`: a name, white space, its value */
const ENV_WORDS = /\b(ENV|setenv)([ \t]+)([A-Za-z_]\w*)([ \t]+)("[^"]*"|'[^']*'|[^\s"']+)/g;
/**
 * `name: value` inside a line, after white space, a quote, `{` or `,`: an HTTP header in a
 * command (`-H "X-Vault-Token: x"`, `'PRIVATE-TOKEN: x'`), a YAML flow map (`{password: x}`). A
 * space after the colon, so that URLs and `host:port` are not names and values.
 */
const INLINE_PAIR = /(^|[\s"'{,(])([A-Za-z_][\w.-]*)(["']?[ \t]*:[ \t]+)("[^"]*"|'[^']*'|[^\s"',}]+)/g;
/** `echo x | docker login --password-stdin`: what is echoed into a registry login is its password */
const ECHO_TO_LOGIN =
  /\b(echo|printf)([ \t]+)("[^"]*"|'[^']*'|[^\s"'|]+)(?=[ \t]*\|[ \t]*(?:docker|podman|buildah|skopeo|helm(?:[ \t]+registry)?)[ \t]+login\b[^\n]*--password-stdin)/g;
/** A .netrc line: `machine host login bob password x` */
const NETRC_PASSWORD = /(\bmachine\s+\S+[^\n]*?\s(?:password|passwd)\s+)(\S+)/g;

/**
 * Whether a URL's user information is a credential: a password (`user:password`), or over
 * http(s) or ftp(s) a user name alone (Git hosts take a token as the user name:
 * `https://ghp_x@github.com`). `ssh://git@host` names a user, its key is elsewhere.
 */
function userInfoIsCredential(scheme: string, userInfo: string): boolean {
  return userInfo.includes(':') || /^(?:https?|ftps?)$/i.test(scheme);
}

/** `--password x`, `-token x` inside one string (a shell command) */
const FLAG_VALUE = /(^|\s)(--?[A-Za-z][\w.-]*)(\s+)("[^"]*"|'[^']*'|[^\s"'-][^\s"']*)/g;
/** `"password": "x"` (JSON text) */
const JSON_PAIR = /("([^"\\]+)"\s*:\s*)"(?:[^"\\]|\\.)*"/g;
/** `password: x`, `db.password = x` at the start of a line of an embedded file */
const KEY_LINE = /^(\s*(?:-\s+)?["']?([A-Za-z_][\w.-]*)["']?\s*[:=][ \t]*)(\S.*)$/gm;

/** `db.password` -> `password`: a dotted key (properties, a field path) is judged by its last part. */
function sensitiveLeaf(key: string): boolean {
  return isSensitiveKey(key.slice(key.lastIndexOf('.') + 1));
}

function looksLikeToken(t: string): boolean {
  return /[0-9+/=]/.test(t) || (/[a-z]/.test(t) && /[A-Z]/.test(t));
}

/**
 * A rule: its pattern; a cheap test of what every match holds (a literal), so that text without
 * it is not scanned (most values: host names, addresses, names); and what it makes of one match:
 * the credential it found and the text shown instead, or nothing to hide.
 */
type Rule = readonly [RegExp, (s: string) => boolean, (g: readonly string[]) => { secret: string; shown: string } | undefined];

const hasBlank = (s: string): boolean => /\s/.test(s);

const unquote = (v: string): string => v.replace(/^(["'])(.*)\1$/s, '$2');

/**
 * `key=value`; a value that is itself an assignment (`--from-literal=password=x`,
 * `-e DB_PASSWORD=x`) is looked at in turn.
 */
const ASSIGNMENT_RULE: Rule = [
  ASSIGNMENT,
  (s) => s.includes('='),
  ([m, key, eq, v]) => {
    if (sensitiveLeaf(key!)) return { secret: unquote(v!), shown: `${key}${eq}${MASK}` };
    if (!v!.includes('=')) return undefined;
    const found: string[] = [];
    const inner = applyRules(v!, [ASSIGNMENT_RULE], found);
    return found.length ? { secret: found[0]!, shown: `${key}${eq}${inner}` } : { secret: MASK, shown: m! };
  },
];

/** Inline credentials in free text, in the order they are looked for. */
const TEXT_RULES: readonly Rule[] = [
  // user-only URLs (`ssh://git@host`) keep the user
  [
    URL_CREDENTIALS,
    (s) => s.includes('@') && s.includes('://'),
    ([m, scheme]) => {
      const userInfo = m!.slice(scheme!.length, -1);
      return userInfoIsCredential(scheme!.slice(0, -3), userInfo) ? { secret: userInfo, shown: `${scheme}${MASK}@` } : undefined;
    },
  ],
  // a password after a tool's own letter flag (`ipmitool -P x`, `curl -u bob:x`), a .netrc's `password x`
  [TOOL_PASSWORD, (s) => TOOL_NAMES.test(s), ([, head, v]) => ({ secret: unquote(v!), shown: `${head}${MASK}` })],
  [NETRC_PASSWORD, (s) => s.includes('machine'), ([, head, v]) => ({ secret: v!, shown: `${head}${MASK}` })],
  // Go's database DSN (`user:password@tcp(host:3306)/db`): user information without a scheme
  [DSN_CREDENTIALS, (s) => s.includes('@'), ([m]) => ({ secret: m!.slice(0, -1), shown: `${MASK}@` })],
  [PEM_PRIVATE_KEY, (s) => s.includes('PRIVATE KEY'), ([m]) => ({ secret: m!, shown: '(private key)' })],
  [SOPS_VALUE, (s) => s.includes('ENC['), ([m]) => ({ secret: m!, shown: '(encrypted)' })],
  [SHAPED_TOKEN, (s) => SHAPED_TOKEN_HINT.test(s), ([m]) => ({ secret: m!, shown: MASK })],
  [URL_SIGNATURE, (s) => /sig|credential|token/i.test(s), ([, head, v]) => ({ secret: v!, shown: `${head}${MASK}` })],
  [OPENSSL_PASS, (s) => s.includes('pass:'), ([, head, v]) => ({ secret: unquote(v!), shown: `${head}${MASK}` })],
  [
    AUTH_HEADER,
    (s) => AUTH_SCHEME_WORD.test(s),
    ([, before, scheme, sp, token]) => ({ secret: token!, shown: `${before}${scheme}${sp}${MASK}` }),
  ],
  [
    AUTH_SCHEME,
    (s) => AUTH_SCHEME_WORD.test(s),
    ([, scheme, sp, token]) => (looksLikeToken(token!) ? { secret: token!, shown: `${scheme}${sp}${MASK}` } : undefined),
  ],
  ASSIGNMENT_RULE,
  [ECHO_TO_LOGIN, (s) => s.includes('--password-stdin'), ([, cmd, sp, v]) => ({ secret: unquote(v!), shown: `${cmd}${sp}${MASK}` })],
  [
    ENV_WORDS,
    (s) => s.includes('ENV') || s.includes('setenv'),
    ([, cmd, sp, name, sp2, v]) => (sensitiveLeaf(name!) ? { secret: unquote(v!), shown: `${cmd}${sp}${name}${sp2}${MASK}` } : undefined),
  ],
  [
    FLAG_VALUE,
    (s) => s.includes('-') && hasBlank(s),
    ([, lead, flag, sp, v]) =>
      sensitiveLeaf(flag!.replace(/^-+/, '')) ? { secret: unquote(v!), shown: `${lead}${flag}${sp}${MASK}` } : undefined,
  ],
  [
    JSON_PAIR,
    (s) => s.includes('"') && s.includes(':'),
    ([m, head, key]) => (sensitiveLeaf(key!) ? { secret: unquote(m!.slice(head!.length)), shown: `${head}"${MASK}"` } : undefined),
  ],
];
/** Lines of an embedded file (properties, YAML, INI): `password: x`, `db.password = x`. */
const LINE_RULES: readonly Rule[] = [
  [
    KEY_LINE,
    (s) => s.includes(':') || s.includes('='),
    ([, head, key, v]) => (sensitiveLeaf(key!) ? { secret: unquote(v!.trim()), shown: `${head}${MASK}` } : undefined),
  ],
  [KICKSTART_ROOTPW, (s) => s.includes('rootpw'), ([, head, v]) => ({ secret: v!, shown: `${head}${MASK}` })],
  [PRESEED_PASSWORD, (s) => s.includes('passwd/'), ([, head, v]) => ({ secret: v!, shown: `${head}${MASK}` })],
  [CHPASSWD_LINE, (s) => s.includes('chpasswd'), ([, head, v]) => ({ secret: v!, shown: `${head}${MASK}` })],
  [
    NAME_SPACE_VALUE,
    () => true,
    ([, head, key, v]) => (sensitiveLeaf(key!) ? { secret: unquote(v!), shown: `${head}${MASK}` } : undefined),
  ],
];
/** Names and values inside a line of a value (a header in a command, a flow map). */
const PAIR_RULES: readonly Rule[] = [
  [
    INLINE_PAIR,
    (s) => s.includes(':'),
    ([, lead, key, colon, v]) => (sensitiveLeaf(key!) ? { secret: unquote(v!), shown: `${lead}${key}${colon}${MASK}` } : undefined),
  ],
];

/**
 * Whether a repository URL carries a credential: a password (`user:token@`) in any form, a user
 * name over http(s) (`https://<token>@host`: Git hosts take a token as the user name), or an
 * inline credential `redactText` finds (`?private_token=...`). `ssh://git@host/x` and
 * `git@host:x` (a user name, the key elsewhere) carry none.
 */
export function urlHasCredentials(url: string): boolean {
  const m = /^(?:([a-z][a-z0-9+.-]*):\/\/)?([^\s/?#@]*)@/i.exec(url.trim());
  if (m && userInfoIsCredential(m[1] ?? '', m[2]!)) return true;
  const found: string[] = [];
  redactText(url, found);
  return found.length > 0;
}

function applyRules(s: string, rules: readonly Rule[], found?: string[]): string {
  let t = s;
  for (const [re, may, rule] of rules) {
    if (!may(t)) continue;
    t = t.replace(re, (...a: unknown[]) => {
      const groups = a.slice(0, -2).map((x) => (typeof x === 'string' ? x : ''));
      const r = rule(groups);
      if (!r) return groups[0]!;
      if (r.secret !== MASK) found?.push(r.secret);
      return r.shown;
    });
  }
  return t;
}

/** Cheap test before the rules: every rule needs one of these words (most text, MACs, addresses, names, holds none). */
const MAY_HOLD_INLINE = new RegExp(
  `${CREDENTIAL_WORDS}|@|BEGIN|ENC\\[|Basic|Bearer|Digest|Negotiate|machine|sig|PuTTY|ANSIBLE_VAULT|${TOOL_NAMES.source}|${SHAPED_TOKEN_HINT.source}`,
  'i',
);

/** Free text (a message, a command line, an env string) with inline credentials masked; `found` collects them. */
export function redactText(s: string, found?: string[]): string {
  return MAY_HOLD_INLINE.test(s) ? applyRules(s, TEXT_RULES, found) : s;
}

/** A string value (maybe a whole embedded file): `redactText` plus `key: value` lines with a sensitive key. */
export function redactValueText(s: string, found?: string[]): string {
  if (!MAY_HOLD_INLINE.test(s)) return s;
  const t = applyRules(applyRules(s, TEXT_RULES, found), PAIR_RULES, found);
  return t.includes('\n') || /^\s*[\w.-]+\s*[:=]/.test(t) ? applyRules(t, LINE_RULES, found) : t;
}

/** The text shown for a string value: `(set)` for key material, `(encrypted)` for sops, inline credentials masked. */
export function redactString(s: string): { redacted: boolean; text: string } {
  if (s.includes('PRIVATE KEY') || OTHER_KEY_FILE.test(s)) return { redacted: true, text: '(set)' };
  if (s.trimStart().startsWith('ENC[')) return { redacted: true, text: '(encrypted)' };
  return { redacted: false, text: redactValueText(s) };
}

/** kustomize quotes the secretGenerator literals it cannot split (`literal sources [password x]: invalid literal source password x, expected key=value`) */
const LITERAL_SOURCE = /(literal sources? )(\[[^\]\n]*\]|.+?(?=, expected))/g;

/**
 * What another tool printed (kustomize, kpt, git), before a message quotes it: tools echo their
 * input (a repository URL with its token, a secretGenerator literal), which no known-value scrub
 * has seen.
 */
export function redactToolOutput(s: string): string {
  return redactValueText(s.replace(LITERAL_SOURCE, `$1${MASK}`));
}

/** `--password`, `-token`: a command-line flag whose value is a credential. */
function isSensitiveFlag(arg: unknown): boolean {
  return typeof arg === 'string' && arg.charCodeAt(0) === 45 && /^--?[A-Za-z][\w.-]*$/.test(arg) && isSensitiveKey(arg.replace(/^-+/, ''));
}

/** A command line as a list (`args`, `command`): the item after a sensitive flag (`--password`, `x`) is masked too. */
export function redactArgs<T>(list: readonly T[]): (T | string)[] {
  if (!list.some((x) => typeof x === 'string')) return [...list];
  return list.map((x, i) => {
    if (i > 0 && isSensitiveFlag(list[i - 1])) return MASK;
    return typeof x === 'string' ? redactString(x).text : x;
  });
}

// ---- known values: the credentials of one run ------------------------------------------

/** Long and varied enough to scrub from any text without mangling it ("password", "8080" and "true" are not). */
function worthScrubbing(v: string): boolean {
  if (v.length < 6 || v.includes(MASK)) return false;
  if (/^[A-Za-z]+$/.test(v)) return v.length >= 12;
  if (/^[-+]?\d+$/.test(v)) return v.length >= 10;
  return true;
}

const HTML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/**
 * `v` URL-encoded. A lone UTF-16 surrogate has no UTF-8 form and `encodeURIComponent` throws on
 * it; an encoder that writes such a string anyway writes U+FFFD, as `Buffer` does.
 */
function uriEncoded(v: string): string {
  try {
    return encodeURIComponent(v);
  } catch {
    return encodeURIComponent(v.replace(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, '\uFFFD'));
  }
}

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
    uriEncoded(v),
    hex,
    hex.toUpperCase(),
    JSON.stringify(v).slice(1, -1),
    v.replace(/[&<>"']/g, (c) => HTML_ESCAPES[c]!),
  ];
}

/**
 * Calls `found` for every credential in an item's data: every value of a Secret's `data` /
 * `stringData` (base64 decoded too; not Metal3 network data), values whose own key is a
 * credential key (`password`, `token: [a, b]`; not what only names something: `namesSomething`),
 * the value of an env-style item with a credential name, credentials written inline in strings
 * (`redactValueText`) and the value after a sensitive flag in a command line. Narrower than
 * `isSensitivePath` (what is never shown): under `credentials:` a `mode` or an age recipient is
 * hidden by the report but is no credential to scrub from every message.
 */
export function forEachCredential(root: unknown, found: (value: string | number, path: (string | number)[]) => void): void {
  const secretData = isRecord(root) && root.kind === 'Secret';
  // one path, pushed and popped on the way (a copy only for `found`): items are walked by the thousand
  const path: (string | number)[] = [];
  const leaf = (v: string | number, credential: boolean): void => {
    // a value of the Secret's data, or the data written as one scalar (`stringData: s3cr3t`, invalid but still a secret)
    if (secretData && path.length >= 1 && (path[0] === 'data' || path[0] === 'stringData')) {
      if (path.length === 2 && isNonCredentialSecretKey(String(path[1]))) return;
      found(v, [...path]);
      const text = path[0] === 'data' && typeof v === 'string' ? decodeBase64(v) : undefined;
      if (text !== undefined) found(text, [...path]);
      return;
    }
    if (credential && !namesSomething(path, v)) found(v, [...path]);
    if (typeof v !== 'string' || !MAY_HOLD_INLINE.test(v)) return;
    const inline: string[] = [];
    redactValueText(v, inline);
    for (const f of inline) found(f, [...path]);
  };
  const step = (key: string | number, v: unknown, credential: boolean): void => {
    path.push(key);
    visit(v, credential);
    path.pop();
  };
  // `credential`: the nearest key above is a credential key (list items inherit it)
  const visit = (v: unknown, credential: boolean): void => {
    if (Array.isArray(v)) {
      // a command line's value after a sensitive flag (what redactArgs masks)
      for (let i = 1; i < v.length; i++) {
        const x = v[i];
        if (x !== MASK && (typeof x === 'string' || typeof x === 'number') && isSensitiveFlag(v[i - 1])) found(x, [...path, i]);
      }
      v.forEach((x, i) => {
        // env-style items: `{name: DB_PASSWORD, value: ...}`: all but the name
        if (isRecord(x) && typeof x.name === 'string' && isCredentialKey(x.name)) {
          path.push(i);
          for (const [k, y] of Object.entries(x)) step(k, y, k !== 'name');
          path.pop();
        } else step(i, x, credential);
      });
    } else if (isRecord(v)) {
      for (const k in v) {
        if (!Object.hasOwn(v, k)) continue;
        const x = v[k];
        // the object as last applied, a JSON text: its credentials are the object's own
        if (k === LAST_APPLIED && typeof x === 'string') forEachCredential(parsedJson(x), (c, p) => found(c, [...path, k, ...p]));
        step(k, x, isCredentialKey(k));
      }
    } else if (typeof v === 'string' || typeof v === 'number') leaf(v, credential);
  };
  visit(root, false);
}

function parsedJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

const FORM_PREFIX = 6;

/** Up to this many form prefixes, a text is first searched for each (indexOf) before the scan. */
const FEW_PREFIXES = 32;

/**
 * The forms of known values that start with one FORM_PREFIX: their distinct lengths, longest
 * first, and the forms themselves. At a text position with that prefix, one lookup per length
 * finds the longest form there: values that share a prefix (`BmcPass-node00001`, `-node00002` ...
 * by the thousand) cost a few lookups, not a comparison with each.
 */
interface FormBucket {
  lengths: number[];
  forms: Set<string>;
}

function addForms(index: Map<string, FormBucket>, v: string): void {
  for (const f of encodings(v)) {
    if (f.length < FORM_PREFIX) continue;
    const k = f.slice(0, FORM_PREFIX);
    let bucket = index.get(k);
    if (!bucket) index.set(k, (bucket = { lengths: [], forms: new Set() }));
    if (bucket.forms.has(f)) continue;
    bucket.forms.add(f);
    if (!bucket.lengths.includes(f.length)) {
      bucket.lengths.push(f.length);
      bucket.lengths.sort((a, b) => b - a);
    }
  }
}

function hasAnyPrefix(text: string, index: Map<string, FormBucket>): boolean {
  for (const k of index.keys()) if (text.includes(k)) return true;
  return false;
}

/** Work done by scrubbing, counted for the tests that keep it linear: set lookups of candidate forms. */
export const scrubWork = { lookups: 0 };

/** The length of the longest known form at `text[i]`, or 0. */
function formAt(text: string, i: number, index: Map<string, FormBucket>): number {
  const bucket = index.get(text.slice(i, i + FORM_PREFIX));
  if (!bucket) return 0;
  for (const length of bucket.lengths) {
    scrubWork.lookups++;
    if (i + length <= text.length && bucket.forms.has(text.slice(i, i + length))) return length;
  }
  return 0;
}

/** The parts of a result that are text a reader sees. */
export interface RedactableResult {
  message: string;
  field?: { path: string; currentValue?: unknown; proposedValue?: unknown };
  tags?: Record<string, string>;
}

/**
 * The credentials of one run (the environment's, the input items', those a function read from
 * a file or a BMC), removed from every text it is given, in every encoding `encodings` lists,
 * together with inline credentials (`redactText`). Outputs pass their text through `scrub`.
 */
export class Redactor {
  readonly #known = new Set<string>();
  /** every form of every known value by its first FORM_PREFIX characters: linear in the text, whatever the number of values */
  readonly #index = new Map<string, FormBucket>();

  /** A credential: removed from every text from now on (too short or common values are ignored, see `worthScrubbing`). */
  add(value: unknown): this {
    const v = typeof value === 'string' ? value.trim() : typeof value === 'number' ? String(value) : undefined;
    if (v === undefined || !worthScrubbing(v) || this.#known.has(v)) return this;
    this.#known.add(v);
    addForms(this.#index, v); // added to the index as it comes: adds and scrubs may alternate by the thousand
    return this;
  }

  /** A user name and password in use: the password, and `user:password` (what Basic auth encodes). */
  addCredentials(username: string | undefined, password: unknown): this {
    this.add(password);
    if (username !== undefined && typeof password === 'string' && password !== '') this.add(`${username}:${password}`);
    return this;
  }

  /** Every environment variable with a credential-like name (`BMC_PASSWORD`, `BMC_NODE1_PASSWORD`, `GITHUB_TOKEN` ...). */
  addEnv(env: Readonly<Record<string, string | undefined>>): this {
    // names first: reading a value of process.env is a call into the process's environment, and most are no credential
    for (const k of Object.keys(env)) {
      if (!isCredentialEnvName(k)) continue;
      const v = env[k];
      if (v === undefined) continue;
      this.addCredentials(/PASSWORD$/i.test(k) ? env[k.replace(/PASSWORD$/i, 'USERNAME')] : undefined, v);
    }
    return this;
  }

  /** Every credential in an item's data (`forEachCredential`). */
  addData(root: unknown): this {
    forEachCredential(root, (v) => this.add(v));
    return this;
  }

  /** `text` without any known credential, in any encoding: safe on any format (JSON, HTML, YAML), it only replaces values. */
  scrubKnown(text: string): string {
    if (this.#known.size === 0) return text;
    const index = this.#index;
    // few credentials (a BMC's password, user:password, a session token): one native scan per
    // form prefix finds that none occurs, the common case, without a substring per character
    if (index.size <= FEW_PREFIXES && !hasAnyPrefix(text, index)) return text;
    let out = '';
    let last = 0;
    for (let i = 0; i + FORM_PREFIX <= text.length; ) {
      const length = formAt(text, i, index);
      if (length === 0) i++;
      else {
        out += text.slice(last, i) + MASK;
        i += length;
        last = i;
      }
    }
    return last === 0 ? text : out + text.slice(last);
  }

  /** Free text (a message, a log line) without known credentials and without inline ones (`redactText`). */
  scrub(text: string): string {
    return redactText(this.scrubKnown(text));
  }

  /** Results with every text a reader sees scrubbed: message, field values, tags. */
  scrubResults<R extends RedactableResult>(results: R[]): R[] {
    for (const r of results) {
      r.message = this.scrub(r.message);
      if (r.field) {
        if (r.field.currentValue !== undefined) r.field.currentValue = this.#scrubValue(r.field.currentValue);
        if (r.field.proposedValue !== undefined) r.field.proposedValue = this.#scrubValue(r.field.proposedValue);
      }
      if (r.tags) for (const k of Object.keys(r.tags)) r.tags[k] = this.scrub(r.tags[k]!);
    }
    return results;
  }

  #scrubValue(v: unknown): unknown {
    if (typeof v === 'string') return this.scrub(v);
    if (typeof v === 'number' && this.#known.has(String(v))) return MASK;
    return isRecord(v) || Array.isArray(v) ? JSON.parse(this.scrub(JSON.stringify(v))) : v;
  }
}

/** A DNS-1123 name, what Kubernetes objects are named. */
const OBJECT_NAME = /^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/;

/**
 * A value at a sensitive path that names something rather than being a secret, so it is not
 * scrubbed from every text: a reference (`credentialsSecret.name`, `secretKeyRef.key`, a
 * `credentialsSecret: node01-bmc` Secret name) or a user name alone (scrubbed with its password, `addCredentials`).
 */
function namesSomething(path: readonly (string | number)[], v: string | number): boolean {
  const leaf = String(path[path.length - 1]);
  if (REFERENCE_KEY.test(leaf) || leaf === 'key' || IDENTITY_KEY.test(leaf)) return true;
  return /secret$/i.test(leaf) && typeof v === 'string' && OBJECT_NAME.test(v);
}

/** The text of a base64 value, or undefined when it is not base64 of UTF-8 text. */
function decodeBase64(v: string): string | undefined {
  const t = v.replace(/\s+/g, '');
  if (!/^[A-Za-z0-9+/_-]*={0,2}$/.test(t)) return undefined;
  const text = Buffer.from(t, 'base64').toString('utf8');
  return text.includes('\uFFFD') ? undefined : text;
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
