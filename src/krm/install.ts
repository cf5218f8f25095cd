/**
 * A broken install: a file of dist/ that a bundle or the CLI loads on first use (lib/<fn>.js,
 * lazy/yaml.cjs, a lazy validator) is missing. Not a bug to report and not a problem of the
 * input: one line that names the file and the fix, wherever it surfaces (a function's results,
 * a CLI command's error, the process's last word).
 */
export class InstallError extends Error {}

/** The one-line message for a missing install file, or undefined when `e` is something else. */
export function missingInstallFile(e: unknown): string | undefined {
  if (e instanceof InstallError) return e.message;
  const err = e as NodeJS.ErrnoException;
  const where = err?.code === 'ENOENT' ? err.path : err?.code === 'MODULE_NOT_FOUND' ? /'([^']+)'/.exec(err.message)?.[1] : undefined;
  // in a bundle, __dirname is the dist folder: a missing file elsewhere (the user's) is not this
  const dist = typeof __dirname === 'string' ? __dirname : undefined;
  if (!where || !/[/\\](?:lib|lazy)[/\\]/.test(where) || (dist !== undefined && !where.startsWith(dist))) return undefined;
  return `${where} is missing: install dist/ whole (each bundle needs the lib/ and lazy/ folders beside it)`;
}

/** Runs `load` (a require or read of an install file): a missing file becomes an InstallError. */
export function loadInstalled<T>(load: () => T): T {
  try {
    return load();
  } catch (e) {
    const missing = missingInstallFile(e);
    if (missing) throw new InstallError(missing);
    throw e;
  }
}
