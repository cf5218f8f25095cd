/**
 * RFC 3339 times as the CLIs and artifacts take them (`--now`, BAREMETAL_KRM_NOW, an artifact's
 * options.now): a date, optionally with a time and its zone. A date the calendar does not have
 * (2025-02-30) is refused: Date.parse would move it to another day without a word.
 */
const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d+)?)?(?:Z|[+-](\d{2}):(\d{2})))?$/;

export function isRfc3339Time(text: string): boolean {
  const m = RFC3339.exec(text);
  if (!m || Number.isNaN(Date.parse(text))) return false;
  const [year, month, day] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const days = new Date(Date.UTC(year, month, 0)).getUTCDate(); // the month's last day
  if (month < 1 || month > 12 || day < 1 || day > days) return false;
  return Number(m[4] ?? 0) < 24 && Number(m[5] ?? 0) < 60 && Number(m[6] ?? 0) < 60 && Number(m[7] ?? 0) < 24 && Number(m[8] ?? 0) < 60;
}
