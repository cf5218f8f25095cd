/**
 * Which keys name credentials: the key rules of the one home of redaction (redact.ts), in a
 * module of their own that imports nothing, so that src/krm (a header problem's message) can
 * ask without an import cycle (redact.ts imports the runtime).
 */
// ---- keys --------------------------------------------------------------------------------

/**
 * Keys whose values are credentials (any depth, any type): `password`, `adminPass`, `SITE_PW`,
 * `ldapBindPw`, `rootpw` (kickstart), `clientSecret`, `tls.key`, `client-key-data`, `keyData` ...
 */
const CREDENTIAL_KEY =
  /pass(?:word|wd|phrase)?s?$|passw(?:or)?d|pwd|pw$|secret|token|credential|api[-_]?key|access[-_]?key|private[-_]?key|[-_.]key(?:-data)?$|^key$|key[-_]?data$|auth$|community$|psk$|(?:^|[-_.])pat$/i;
/**
 * A camelCase key ending in `Key`, `Pat` or `Psk` (`sshKey`, `encryptionKey`, `githubPat`,
 * `wifiPsk`): as `ssh_key` is (case-sensitive: not `monkey`, `compat`)
 */
const CAMEL_KEY = /[a-z0-9](?:Key|Pat|Psk)$/;
/**
 * Keys that say "key" but hold none: a public key (`sshPublicKey`, `ssh_public_key`, `pubKey`) is
 * made to be shown; Kubernetes' `topologyKey` names a node label.
 */
const NOT_SECRET_KEY = /public[-_.]?key|pub[-_.]?key$|^topologyKey$/i;
/** Keys that identify an account: not a finding in plaintext, but never shown either. */
export const IDENTITY_KEY = /user[-_]?name$/i;
/** Keys that name or point at a secret rather than hold one (`credentialsName`, `secretRef`, `tokenFile` ...). */
export const REFERENCE_KEY =
  /(?<!user[-_]?)name$|ref$|namespace$|path$|file$|selector$|template$|regex$|dir$|directory$|sock(?:et)?$|askpass$/i;
/**
 * Environment variables whose names look like credentials but hold places: the shell's working
 * directories (`PWD` = print working directory, not password). Only as env names: a `pwd:` key in
 * a config file still holds a password.
 */
const NOT_CREDENTIAL_ENV = /^(?:PWD|OLDPWD)$/;
/** Settings about a secret, not secrets: `tokenTTL`, `sessionTimeout`, `tokenExpirySeconds` ... */
const SETTING_KEY = /(?:ttl|timeout|seconds|minutes|hours|interval|duration|period)$/i;
/**
 * Secret keys that hold no secret: Metal3 network data and metadata (addresses, links, routes),
 * which airshipctl and Metal3 keep in Secrets only because BMO reads them from there.
 */
const NON_CREDENTIAL_SECRET_KEY = /^(?:networkData|network[-_]?data|metaData|meta[-_]?data|nmstate|networkConfig)$/;

/** Keys repeat (every item has `apiVersion`, `metadata`, `name` ...): each is judged once. */
const credentialKeys = new Map<string, boolean>();

/** A plaintext value under this key is a credential (a finding of the `encryption` rule). */
export function isCredentialKey(k: string): boolean {
  let v = credentialKeys.get(k);
  if (v === undefined) {
    v = (CREDENTIAL_KEY.test(k) || CAMEL_KEY.test(k)) && !NOT_SECRET_KEY.test(k) && !REFERENCE_KEY.test(k) && !SETTING_KEY.test(k);
    if (credentialKeys.size < 10_000) credentialKeys.set(k, v);
  }
  return v;
}

/** An environment variable whose value is a credential (`BMC_PASSWORD`, `MYSQL_PWD`; not `PWD`, `GIT_ASKPASS`, `SSH_AUTH_SOCK`). */
export function isCredentialEnvName(name: string): boolean {
  return !NOT_CREDENTIAL_ENV.test(name) && isCredentialKey(name);
}

const sensitiveKeys = new Map<string, boolean>();

/**
 * The annotation `kubectl apply` keeps the object in, as JSON: a Secret's data with it (in
 * base64, whatever encrypts the Secret's own). Never shown; its credentials are scrubbed.
 */
export const LAST_APPLIED = 'kubectl.kubernetes.io/last-applied-configuration';

/** A value under this key (or env var of this name) is never shown: credentials, user names, the object as last applied. */
export function isSensitiveKey(k: string): boolean {
  let v = sensitiveKeys.get(k);
  if (v === undefined) {
    v = isCredentialKey(k) || (IDENTITY_KEY.test(k) && !SETTING_KEY.test(k)) || k === LAST_APPLIED;
    if (sensitiveKeys.size < 10_000) sensitiveKeys.set(k, v);
  }
  return v;
}

/** A Secret `data`/`stringData` key that holds no credential (Metal3 network data, metadata). */
export function isNonCredentialSecretKey(k: string): boolean {
  return NON_CREDENTIAL_SECRET_KEY.test(k);
}
