/**
 * What an item's values hold, in one pass per item: certificates (expiry, key pairs), plaintext
 * secrets and sops files without their data key (encryption), placeholders that are replaced at
 * render time, template leftovers and disabled TLS verification (hygiene). Most items hold none of
 * it: the item's text is looked at before its tree is walked.
 */
import type { KubeObject } from '../../krm/index.js';
import { dotted, isRecord } from '../../krm/index.js';
import { type CertificateFact, checkCertificates } from '../certificates.js';
import { type Head, objectMatcher, type RuleContext, type RuleFamily, type Tree } from '../context.js';
import { collectEncrypted, placeholderTokens, sensitiveValues } from './secret-values.js';
import { pushAll } from '../../krm/index.js';

const B64_PEM = 'LS0tLS1CRUdJTi'; // base64 of "-----BEGIN"
const TEMPLATE_LEFTOVER = /<no value>|NEWSITE_CHANGEME|CHANGEME/;
const CERTIFICATE_RULES = [
  'certificate-expired',
  'certificate-expiring',
  'certificate-not-yet-valid',
  'certificate-key-mismatch',
  'certificate-unreadable',
];

/** `a, b, c, d, e and 3 more` */
function firstFive(list: string[]): string {
  return list.slice(0, 5).join(', ') + (list.length > 5 ? ` and ${list.length - 5} more` : '');
}

export class ContentRules implements RuleFamily {
  readonly certificates: CertificateFact[] = [];
  readonly #encryptionAllowed: (kind: string, ns: string | undefined, name: string) => boolean;
  readonly #certificatesOn: boolean;

  constructor(private readonly ctx: RuleContext) {
    this.#encryptionAllowed = objectMatcher(ctx.spec.encryption?.allow);
    this.#certificatesOn = ctx.nowValid && CERTIFICATE_RULES.some((r) => ctx.on(r));
  }

  visit(o: KubeObject, head: Head, tree: Tree | undefined): void {
    const k = head.kind;
    if (!tree || k === 'CustomResourceDefinition') return;
    const body = o.body;
    // hygiene everywhere (BareMetalHost insecure-tls is reported by the host rules, with its own message)
    const hygiene =
      (this.ctx.on('template-leftover') && TEMPLATE_LEFTOVER.test(body)) ||
      (this.ctx.on('insecure-tls') && k !== 'BareMetalHost' && body.includes('disableCertificateVerification'));
    if (hygiene) this.#hygiene(o, head, tree);
    if (k === 'BareMetalHost' || k === 'HardwareData' || k === 'HardwareInventory') return;
    // certificates: PEM, base64 PEM, kubeconfig *-data fields, or any Secret data (base64)
    const mayHoldCerts =
      k === 'Secret' || body.includes('-----BEGIN') || body.includes(B64_PEM) || /-data['"]?:/.test(body) || body.includes('clusters:');
    if (mayHoldCerts && this.#certificatesOn) {
      const r = checkCertificates(o, tree, { now: this.ctx.now, warnDays: this.ctx.spec.certificates?.warnDays ?? 30 });
      pushAll(this.certificates, r.facts);
      for (const f of r.findings) this.ctx.report(f.rule, f.message, f);
    }
    if (this.ctx.on('encryption') && !this.#encryptionAllowed(k, head.namespace, head.name)) this.#encryption(o, head, tree, body);
  }

  #encryption(o: KubeObject, head: Head, tree: Tree, body: string): void {
    const sops = isRecord(tree.sops);
    const isSecret = head.kind === 'Secret' && head.apiVersion === 'v1';
    const isCatalogue = !isSecret && head.group !== 'baremetal-krm.dev' && /Catalogue$/.test(head.kind);
    // ENC[...] values without the sops: block (which holds the data key) cannot be decrypted
    if (!sops && body.includes('ENC[')) {
      const enc: string[] = [];
      collectEncrypted(tree, [], enc);
      if (enc.length > 0)
        this.ctx.report(
          'encryption',
          `${o.id} has ${enc.length} sops-encrypted value(s) (${firstFive(enc)}) but no sops: block, which holds the data key: nothing can decrypt them; commit the file exactly as sops wrote it (with its sops: block) or encrypt it again`,
          { object: o, field: enc[0], path: enc[0]!.split('.') },
        );
    }
    if (!isSecret && !isCatalogue) return;
    const { plain, placeholders } = sensitiveValues(tree, isSecret);
    if (placeholders.length > 0) this.#placeholders(o, tree, placeholders);
    if (plain.length === 0) return;
    // a catalogue: encrypt just the flagged keys (named by a regex sops matches against key names)
    const keys = [...new Set(plain.map((p) => p.split('.').pop()!).filter((x) => !/^\d+$/.test(x)))].sort();
    const regex = isCatalogue ? `^(${keys.map((x) => x.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|')})$` : '^(data|stringData)$';
    this.ctx.report(
      'encryption',
      `${o.id} holds ${plain.length} plaintext secret value(s) (${firstFive(plain)})${sops ? ' outside its sops-encrypted fields' : ''}: encrypt it with sops (e.g. sops --encrypt --encrypted-regex '${regex}'), or list it in spec.encryption.allow`,
      { object: o, field: plain[0], path: plain[0]!.split('.') },
    );
  }

  #placeholders(o: KubeObject, tree: Tree, fields: string[]): void {
    const tokens = new Set<string>();
    for (const f of fields) for (const t of placeholderTokens(tree, f)) tokens.add(t);
    this.ctx.report(
      'secret-placeholder',
      [
        `${o.id} holds ${fields.length} value(s) with placeholders (${firstFive(fields)}: ${firstFive([...tokens].sort())})`,
        ' that a replacement transformer fills in at render time: not plaintext secrets here; validate the rendered output for those',
      ].join(''),
      { object: o, field: fields[0], path: fields[0]!.split('.') },
    );
  }

  #hygiene(o: KubeObject, head: Head, tree: Tree): void {
    const leftovers = this.ctx.on('template-leftover');
    const insecure = this.ctx.on('insecure-tls') && head.kind !== 'BareMetalHost';
    const visit = (v: unknown, path: (string | number)[]): void => {
      if (typeof v === 'string') {
        const m = leftovers ? TEMPLATE_LEFTOVER.exec(v) : null;
        if (m)
          this.ctx.report(
            'template-leftover',
            `${o.id} has the template leftover "${leftoverWord(v)}" at ${dotted(path)}: the template was rendered without a value; set the value in the catalogue`,
            { object: o, field: dotted(path), path },
          );
        return;
      }
      if (Array.isArray(v)) v.forEach((x, i) => visit(x, [...path, i]));
      else if (isRecord(v))
        for (const [k, x] of Object.entries(v)) {
          if (path.length === 0 && (k === 'sops' || k === 'metadata')) continue;
          if (k === 'disableCertificateVerification' && x === true && insecure)
            this.ctx.report(
              'insecure-tls',
              `${o.id} sets ${dotted([...path, k])}: true: the BMC's TLS identity is not checked; install a trusted certificate and set it to false`,
              { object: o, field: dotted([...path, k]), path: [...path, k] },
            );
          visit(x, [...path, k]);
        }
    };
    visit(tree, []);
  }
}

function leftoverWord(v: string): string {
  return /<no value>/.test(v) ? '<no value>' : /NEWSITE_CHANGEME/.test(v) ? 'NEWSITE_CHANGEME' : 'CHANGEME';
}
