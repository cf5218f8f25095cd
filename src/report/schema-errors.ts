/** ajv errors as the report's messages name them: the field as a dotted path (`slice.hosts[0].cpuCount`), what is wrong. */
export interface AjvError {
  instancePath: string;
  message?: string;
  params?: Record<string, unknown>;
}

/** A JSON pointer as a dotted path: list indexes in brackets, `~1`/`~0` unescaped. */
export function pointerPath(prefix: string, pointer: string): string {
  const parts = pointer
    .split('/')
    .slice(1)
    .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
  return parts.reduce((path, p) => (/^\d+$/.test(p) ? `${path}[${p}]` : path ? `${path}.${p}` : p), prefix);
}

function errorText(e: AjvError, prefix: string): string {
  const extra =
    e.params && 'allowedValues' in e.params
      ? ` (${(e.params.allowedValues as unknown[]).join(', ')})`
      : e.params && 'additionalProperty' in e.params
        ? ` (${String(e.params.additionalProperty)})`
        : '';
  return `${pointerPath(prefix, e.instancePath) || '(the document)'}: ${e.message ?? 'invalid'}${extra}`;
}

/** Every error, `; `-separated. */
export function ajvText(errors: readonly AjvError[] | null | undefined, prefix: string): string {
  return (errors ?? []).map((e) => errorText(e, prefix)).join('; ');
}

/** The first error only: one clear line. */
export function firstAjvText(errors: readonly AjvError[] | null | undefined, prefix: string): string {
  return errors?.[0] ? errorText(errors[0], prefix) : `${prefix || '(the document)'}: invalid`;
}
