/**
 * Kubernetes object names, the one home for them: the checks are Kubernetes' own
 * (k8s.io/apimachinery/pkg/util/validation: IsDNS1123Label, IsDNS1123Subdomain), and the
 * converters turn any text (a host name, a phase name, a serial number) into a name that passes
 * them, deterministically. A name too long to keep is cut and given a short hash of the whole
 * text, so two long texts that share a prefix never become the same name.
 */
import { lazy } from '../krm/index.js';

/** node:crypto pulls in streams (~10 ms at start): only names that need a hash load it. */
const crypto = lazy(() => require('node:crypto') as typeof import('node:crypto'), 'node:crypto', import.meta.url);

const LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
export const DNS1123_LABEL_MAX = 63;
export const DNS1123_SUBDOMAIN_MAX = 253;

/** IsDNS1123Label: what most names and every label value must be (`node01`, not `node01.lab`). */
export function isDnsLabel(s: string): boolean {
  return s.length <= DNS1123_LABEL_MAX && LABEL.test(s);
}

/** IsDNS1123Subdomain: what `metadata.name` of most kinds must be (`node01.lab.example`). */
export function isDnsSubdomain(s: string): boolean {
  return s.length <= DNS1123_SUBDOMAIN_MAX && s.split('.').every((part) => LABEL.test(part));
}

function hashed(raw: string, cut: string, max: number): string {
  const h = crypto().createHash('sha256').update(raw).digest('hex').slice(0, 8);
  return `${cut.slice(0, max - 9).replace(/[^a-z0-9]+$/, '')}-${h}`;
}

function labelPart(s: string): string {
  return s
    .replace(/[^a-z0-9-]+/g, '-')
    .replace(/-{2,}/g, '-')
    .replace(/^-+|-+$/g, '');
}

/**
 * Any text as a DNS-1123 label: lowercase, every run of other characters one `-`, no `-` at
 * the ends, `fallback` when nothing is left; over `max` (63) characters, cut and hashed.
 */
export function toDnsLabel(raw: string, opts: { max?: number; fallback?: string } = {}): string {
  const max = opts.max ?? DNS1123_LABEL_MAX;
  const s = labelPart(raw.toLowerCase());
  if (s === '') return opts.fallback ?? '';
  return s.length > max ? hashed(raw, s, max) : s;
}

/**
 * Any text as a DNS-1123 subdomain: like `toDnsLabel`, but dots separate labels (empty labels
 * dropped). `max` defaults to 253; pass 63 where the name is also used as a label value.
 */
export function toDnsSubdomain(raw: string, opts: { max?: number; fallback?: string } = {}): string {
  const max = opts.max ?? DNS1123_SUBDOMAIN_MAX;
  const s = raw
    .toLowerCase()
    .split('.')
    .map(labelPart)
    .filter((p) => p !== '')
    .join('.');
  if (s === '') return opts.fallback ?? '';
  return s.length > max ? hashed(raw, s, max) : s;
}
