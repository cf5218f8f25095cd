/**
 * Strings from a BMC as the inventory keeps them: whitespace folded and trimmed, and the
 * placeholders firmware writes where it knows nothing (SMBIOS defaults such as `To Be Filled By
 * O.E.M.`, `N/A`, `Not Specified`, runs of dots, all-zero serials and UUIDs) treated as absent,
 * so that no host is named, labelled or hinted by one.
 */

/** Folded and trimmed text of a string or number; undefined for anything else or nothing. */
export function str(v: unknown): string | undefined {
  if (typeof v !== 'string' && typeof v !== 'number') return undefined;
  const s = String(v).replace(/\s+/g, ' ').trim();
  return s ? s : undefined;
}

const PLACEHOLDER_WORDS = new Set(
  [
    'n/a',
    'na',
    'n.a.',
    'none',
    'null',
    'nil',
    'unknown',
    'empty',
    'invalid',
    'default',
    'default string',
    'not specified',
    'not available',
    'not applicable',
    'not set',
    'not defined',
    'to be filled by o.e.m.',
    'to be filled by oem',
    'o.e.m.',
    'oem',
    'system serial number',
    'system product name',
    'system manufacturer',
    'system version',
    'system sku',
    'chassis serial number',
    'chassis manufacture',
    'base board serial number',
    'baseboard serial number',
    'type1productconfigid',
    'sku',
    '0123456789',
    '123456789',
    '1234567890',
  ].map((w) => w.toLowerCase()),
);

/**
 * A placeholder rather than a value: a known filler word, or a run of one filler character
 * (dots, dashes, underscores, zeros, `X`s, `F`s, as in `..........`, `00000000`, `XXXXXXXX`).
 */
export function isPlaceholder(s: string): boolean {
  const t = s.replace(/\s+/g, ' ').trim().toLowerCase();
  if (PLACEHOLDER_WORDS.has(t)) return true;
  return /^(?:[.\-_*#?\s]+|0+|x{3,}|f{8,})$/.test(t);
}

/** `str`, and undefined for a placeholder: for names, serials, models and other descriptive text (never for Ids). */
export function text(v: unknown): string | undefined {
  const s = str(v);
  return s && !isPlaceholder(s) ? s : undefined;
}

/** A UUID, lowercased; undefined for a placeholder or an all-zero / all-F one. */
export function uuidText(v: unknown): string | undefined {
  const s = text(v)?.toLowerCase();
  if (!s) return undefined;
  const hex = s.replace(/[-{}\s]/g, '');
  return /^(?:0+|f+)$/.test(hex) ? undefined : s;
}

/** A host name; undefined for a placeholder or a name every unconfigured OS has (`localhost`). */
export function hostNameText(v: unknown): string | undefined {
  const s = text(v);
  return s && !/^localhost(?:\.localdomain)?$/i.test(s) ? s : undefined;
}
