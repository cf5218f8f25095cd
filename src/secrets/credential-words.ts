/**
 * The words every credential-looking key holds (case aside): `password` and `adminPass` hold
 * `pass`, `SITE_PW` and `ldapBindPw` hold `pw`, `sshKey` and `tls.key` hold `key`, a user name
 * holds `user`. The cheap tests that skip text before the scrubs read it (an item's text,
 * src/krm/credentials.ts; a string, redact.ts) are built from it: a key that isCredentialKey or
 * isSensitiveKey takes must hold one (a property test keeps the two in step).
 *
 * A module of its own, importing nothing: src/krm reads it without loading the redaction rules.
 */
export const CREDENTIAL_WORDS = 'pass|pw|secret|token|credential|auth|key|user|community|psk|pat';
