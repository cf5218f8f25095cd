/**
 * Plaintext BMC credentials among the input items: `<host>-bmc-secret` Secrets (or the Secrets
 * BareMetalHosts name in spec.bmc.credentialsName) whose data/stringData is not SOPS-encrypted.
 * Only key names are reported, never values.
 */
import type { Context, KubeObject } from '../../src/krm/index.js';
import { isMap } from './inputs.js';
import { isSopsEncrypted } from '../../src/secrets/redact.js';
import { SOPS_ANNOTATION } from './generate.js';

/** The keys of a Metal3 BMC credentials Secret (other keys, e.g. an ephemeral host's userData, are not BMC credentials). */
const CREDENTIAL_KEYS = /^(username|password)$/i;

/** The Secrets the BareMetalHosts name in spec.bmc.credentialsName, as `namespace/name`. */
function credentialSecretsNamed<S>(ctx: Context<S>): Set<string> {
  const referenced = new Set<string>();
  for (const b of ctx.ofKind('BareMetalHost', 'metal3.io')) {
    const name = b.get('spec.bmc.credentialsName');
    if (typeof name === 'string') referenced.add(`${b.namespace ?? ''}/${name}`);
  }
  return referenced;
}

export function warnPlaintextSecrets<S>(ctx: Context<S>): void {
  // the hosts are read (whole) only when a Secret's name does not say already: an input without
  // such Secrets (hosts alone, catalogues) reads no host's data here
  let referenced: Set<string> | undefined;
  for (const s of ctx.ofKind('Secret')) {
    if (s.apiVersion !== 'v1') continue;
    if (!s.name.endsWith('-bmc-secret') && !(referenced ??= credentialSecretsNamed(ctx)).has(`${s.namespace ?? ''}/${s.name}`)) continue;
    const d = s.data;
    if (isMap(d.sops)) continue; // a SOPS-encrypted file: values are ENC[...] or deliberately clear
    const plain: string[] = [];
    for (const field of ['data', 'stringData'] as const) {
      const m = d[field];
      if (!isMap(m)) continue;
      for (const [k, v] of Object.entries(m))
        if (CREDENTIAL_KEYS.test(k) && v !== null && v !== undefined && String(v) !== '' && !isSopsEncrypted(String(v)))
          plain.push(`${field}.${k}`);
    }
    if (!plain.length) continue;
    const marked = s.annotations[SOPS_ANNOTATION] !== undefined;
    ctx.results.warning(
      `Secret ${s.name} holds BMC credentials in plaintext (${plain.join(', ')}${plain.some((p) => p.startsWith('data.')) ? '; base64 is not encryption' : ''}): ` +
        (marked
          ? `it is marked for SOPS (${SOPS_ANNOTATION}) but not encrypted yet: run \`sops --encrypt --encrypted-regex '^(data|stringData)$' --in-place\` on its file before committing`
          : `encrypt it with SOPS (\`sops --encrypt --encrypted-regex '^(data|stringData)$' --in-place <file>\`, as Airship's encrypted catalogues) or keep it out of Git`),
      { object: s as KubeObject, field: plain[0]!, rule: 'credentials/plaintext-secret' },
    );
  }
}
