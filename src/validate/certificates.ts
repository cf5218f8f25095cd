/**
 * x509 certificates wherever intent keeps them: Secrets (`tls.crt`, `ca.crt`, any PEM in data
 * or stringData, base64 kubeconfigs), kubeconfig `*-data` fields (airshipctl `KubeConfig`
 * documents, kubeconfig Secrets), ConfigMaps and catalogues holding PEM. Reports expired,
 * expiring, not-yet-valid and key/cert mismatches, and returns every certificate as a fact.
 * Key material is compared, never printed.
 */
import type * as Crypto from 'node:crypto';
import type { KubeObject, ResourceRef } from '../krm/index.js';
import { loadYaml } from '../krm/index.js';
import { lazy } from '../krm/index.js';
import { dotted, isRecord as isObj } from '../krm/index.js';

export interface CertificateFact {
  subject: string;
  issuer: string;
  notBefore: string;
  notAfter: string;
  daysLeft: number;
  resource: ResourceRef;
  file?: string;
  /** dotted field path of the value holding the certificate (inside a kubeconfig: joined with ` > `) */
  field: string;
  /** index in a PEM bundle */
  index: number;
}

export interface CertFinding {
  rule: string;
  message: string;
  object: KubeObject;
  field: string;
  path: (string | number)[];
}

/** node:crypto, loaded when the first PEM certificate is met (keeps start-up small). */
const cryptoLib = lazy(() => require('node:crypto') as typeof Crypto, 'node:crypto', import.meta.url);

const B64_PEM = 'LS0tLS1CRUdJTi'; // base64 of "-----BEGIN"
const PEM_CERT = /-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----/g;
const DAY = 86_400_000;

type Obj = Record<string, unknown>;

function decodeMaybe(v: string, base64: boolean): string | undefined {
  if (v.includes('-----BEGIN ')) return v;
  if (v.startsWith(B64_PEM) || base64) {
    const t = Buffer.from(v, 'base64').toString('utf8');
    return t;
  }
  return undefined;
}

function isKubeconfigText(t: string): boolean {
  return /(^|\n)clusters:/.test(t) && /(certificate-authority-data|client-certificate-data|client-key-data)/.test(t);
}

function partnerKey(k: string): string[] {
  const out: string[] = [];
  if (k.endsWith('.crt')) out.push(k.slice(0, -4) + '.key');
  if (k.endsWith('.pem')) out.push(k.slice(0, -4) + '-key.pem', k.slice(0, -4) + '.key');
  if (k.includes('certificate')) out.push(k.replace('certificate', 'key'));
  if (k.endsWith('-cert')) out.push(k.slice(0, -5) + '-key');
  if (k.endsWith('Cert')) out.push(k.slice(0, -4) + 'Key');
  if (k === 'crt') out.push('key');
  if (k === 'cert') out.push('key');
  return out;
}

function oneLine(dn: string): string {
  return dn.split('\n').filter(Boolean).join(', ');
}

export function checkCertificates(
  o: KubeObject,
  data: Obj,
  opts: { now: number; warnDays: number },
): { facts: CertificateFact[]; findings: CertFinding[] } {
  const facts: CertificateFact[] = [];
  const findings: CertFinding[] = [];
  const isSecret = data.kind === 'Secret' && data.apiVersion === 'v1';
  // the object's header is read only when a certificate is found (most items hold none)
  let where: { ref: ResourceRef; file?: string } | undefined;
  const located = (): { ref: ResourceRef; file?: string } => (where ??= { ref: o.ref(), file: o.file()?.path });

  const examine = (text: string, path: (string | number)[], label: string, keyText: string | undefined): void => {
    const pems = text.match(PEM_CERT);
    if (!pems) return;
    pems.forEach((pem, index) => {
      const where = label + (pems.length > 1 ? ` (certificate ${index + 1} of ${pems.length})` : '');
      const c = cryptoLib();
      let cert: Crypto.X509Certificate;
      try {
        cert = new c.X509Certificate(pem);
      } catch (e) {
        findings.push({
          rule: 'certificate-unreadable',
          message: `${o.id} ${where}: a PEM certificate does not parse (${(e as Error).message}): replace it with a valid certificate`,
          object: o,
          field: dotted(path),
          path,
        });
        return;
      }
      const notAfter = Date.parse(cert.validTo);
      const notBefore = Date.parse(cert.validFrom);
      // whole days, toward zero: 1903.5 days past notAfter is -1903 days left, "1903 days ago"
      const daysLeft = Math.trunc((notAfter - opts.now) / DAY) || 0;
      const subject = oneLine(cert.subject);
      const issuer = oneLine(cert.issuer);
      const na = new Date(notAfter).toISOString().replace('.000Z', 'Z');
      const nb = new Date(notBefore).toISOString().replace('.000Z', 'Z');
      const { ref, file } = located();
      const fact: CertificateFact = { subject, issuer, notBefore: nb, notAfter: na, daysLeft, resource: ref, field: label, index };
      if (file) fact.file = file;
      facts.push(fact);
      const who = `certificate "${subject}" (issuer "${issuer}") in ${o.id} ${where}`;
      if (notAfter < opts.now)
        findings.push({
          rule: 'certificate-expired',
          message: `${who} expired on ${na} (${Math.abs(daysLeft)} days ago): renew it and commit the new certificate`,
          object: o,
          field: dotted(path),
          path,
        });
      else if (notBefore > opts.now)
        findings.push({
          rule: 'certificate-not-yet-valid',
          message: `${who} is not valid before ${nb}: check the issuer's clock or reissue it`,
          object: o,
          field: dotted(path),
          path,
        });
      else if (daysLeft < opts.warnDays)
        findings.push({
          rule: 'certificate-expiring',
          message: `${who} expires on ${na} (in ${daysLeft} days, less than ${opts.warnDays}): renew it soon`,
          object: o,
          field: dotted(path),
          path,
        });
      if (index === 0 && keyText && keyText.includes('PRIVATE KEY-----') && !keyText.includes('ENCRYPTED')) {
        try {
          const pub = c.createPublicKey(c.createPrivateKey(keyText)).export({ type: 'spki', format: 'der' });
          const certPub = cert.publicKey.export({ type: 'spki', format: 'der' });
          if (!pub.equals(certPub))
            findings.push({
              rule: 'certificate-key-mismatch',
              message: `${who}: the private key beside it does not belong to this certificate; commit the matching key/cert pair`,
              object: o,
              field: dotted(path),
              path,
            });
        } catch {
          // an unreadable key is not a certificate problem
        }
      }
    });
  };

  const walk = (
    v: unknown,
    path: (string | number)[],
    label: (p: (string | number)[]) => string,
    base64Map: boolean,
    depth: number,
  ): void => {
    if (depth > 12) return;
    if (Array.isArray(v)) {
      v.forEach((x, i) => walk(x, [...path, i], label, false, depth + 1));
      return;
    }
    if (!isObj(v)) return;
    for (const [k, x] of Object.entries(v)) {
      if (depth === 0 && (k === 'metadata' || k === 'sops' || k === 'apiVersion' || k === 'kind')) continue;
      const p = [...path, k];
      if (typeof x === 'string') {
        if (x.startsWith('ENC[')) continue;
        const isB64 = base64Map || k.endsWith('-data');
        if (!isB64 && !x.includes('-----BEGIN ') && !x.startsWith(B64_PEM) && !(x.includes('clusters:') && isKubeconfigText(x))) continue;
        const text = decodeMaybe(x, isB64) ?? x;
        if (text.includes('-----BEGIN CERTIFICATE-----')) {
          let keyText: string | undefined;
          for (const pk of partnerKey(k)) {
            const kv = v[pk];
            if (typeof kv === 'string' && !kv.startsWith('ENC[')) {
              keyText = decodeMaybe(kv, isB64) ?? kv;
              break;
            }
          }
          examine(text, p, label(p), keyText);
        } else if (isKubeconfigText(text)) {
          let kc: unknown;
          try {
            kc = loadYaml(text);
          } catch {
            continue;
          }
          const outer = label(p);
          const inner = named(kc);
          walk(kc, p, (q) => `${outer} > ${inner(q.slice(p.length))}`, false, depth + 1);
        }
      } else walk(x, p, label, false, depth + 1);
    }
  };

  if (isSecret) {
    for (const section of ['data', 'stringData']) {
      const m = data[section];
      if (isObj(m)) walk(m, [section], dotted, section === 'data', 1);
    }
  } else {
    walk(data, [], named(data), false, 0);
  }
  return { facts, findings };
}

/**
 * A path as a label, list items by their name where they have one: a kubeconfig certificate is
 * `config.users[name=admin].user.client-certificate-data`, not `users[1]`.
 */
function named(root: unknown): (path: (string | number)[]) => string {
  return (path) => {
    let v = root;
    let s = '';
    for (const p of path) {
      const item = Array.isArray(v) && typeof p === 'number' ? v[p] : isObj(v) ? v[p] : undefined;
      if (typeof p === 'number') s += isObj(item) && typeof item.name === 'string' && item.name ? `[name=${item.name}]` : `[${p}]`;
      else s += (s ? '.' : '') + p;
      v = item;
    }
    return s;
  };
}
