/**
 * CronJob schedules as the Kubernetes API server validates them: robfig/cron's standard parser
 * (`cron.ParseStandard`: five fields, or a `@` descriptor) and no `TZ=`/`CRON_TZ=` prefix (the
 * CronJob's `timeZone` field says that). Written out rather than taken from an npm cron library:
 * those accept what the API server refuses (a seconds field, `L`, `W`, `#`, day of week 7), and
 * the point of the check is that the object is not refused after it is committed.
 */

interface Field {
  name: string;
  min: number;
  max: number;
  names?: readonly string[];
}

const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];
const DAYS = ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'];
const FIELDS: readonly Field[] = [
  { name: 'minute', min: 0, max: 59 },
  { name: 'hour', min: 0, max: 23 },
  { name: 'day of month', min: 1, max: 31 },
  { name: 'month', min: 1, max: 12, names: MONTHS },
  { name: 'day of week', min: 0, max: 6, names: DAYS },
];

/** The descriptors robfig/cron knows (`@every <duration>` aside: not offered here). */
export const CRON_DESCRIPTORS = ['@yearly', '@annually', '@monthly', '@weekly', '@daily', '@midnight', '@hourly'] as const;

function value(text: string, f: Field): number | undefined {
  if (/^\d+$/.test(text)) return Number(text);
  const i = f.names?.indexOf(text.toLowerCase()) ?? -1;
  // names count from the field's minimum: jan = 1, sun = 0
  return i >= 0 ? i + f.min : undefined;
}

/** Why one comma-separated part of a field is not what robfig/cron takes, or undefined. */
function partProblem(part: string, f: Field): string | undefined {
  const [range, step, extra] = part.split('/');
  if (extra !== undefined || range === '') return `"${part}" is not a value, range or step`;
  if (step !== undefined && !(/^\d+$/.test(step) && Number(step) > 0)) return `step "${step}" is not a whole number above 0`;
  if (range === '*' || range === '?') return undefined;
  const ends = range!.split('-');
  if (ends.length > 2) return `"${range}" is not a range`;
  const [lo, hi] = ends.map((e) => value(e, f));
  if (lo === undefined || (ends.length === 2 && hi === undefined)) return `"${range}" is not a number${f.names ? ' or name' : ''}`;
  for (const v of [lo, hi]) if (v !== undefined && (v < f.min || v > f.max)) return `${v} is outside ${f.min}-${f.max}`;
  if (hi !== undefined && hi < lo) return `range "${range}" ends before it begins`;
  return undefined;
}

/**
 * Why `schedule` is not a schedule the Kubernetes API server takes for a CronJob, or undefined:
 * `17 3 * * *`, `*\/15 * * * *`, `0 4 * * mon-fri`, `@daily`.
 */
export function cronScheduleProblem(schedule: string): string | undefined {
  const text = schedule.trim();
  if (/^(CRON_)?TZ=/.test(text)) return 'a time zone prefix is not allowed here (Kubernetes takes it in the CronJob field timeZone)';
  if (text.startsWith('@'))
    return (CRON_DESCRIPTORS as readonly string[]).includes(text) ? undefined : `"${text}" is not one of ${CRON_DESCRIPTORS.join(', ')}`;
  const fields = text.split(/\s+/);
  if (fields.length !== 5)
    return `it has ${text === '' ? 0 : fields.length} field(s); a schedule has 5 (minute hour day-of-month month day-of-week)`;
  for (const [i, field] of fields.entries()) {
    const f = FIELDS[i]!;
    for (const part of field.split(',')) {
      const why = partProblem(part, f);
      if (why) return `${f.name} field "${field}": ${why}`;
    }
  }
  return undefined;
}
