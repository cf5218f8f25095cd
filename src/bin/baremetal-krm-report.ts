/**
 * Temporary entry for `baremetal-krm report` until it is wired into src/bin/baremetal-krm.ts:
 * bundled to dist/baremetal-krm-report.cjs so the command can be tested end to end.
 */
import { reportMain } from '../report/cli.js';

reportMain(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (e: unknown) => {
    process.stderr.write(`baremetal-krm report: internal error: ${(e as Error).stack ?? String(e)}\n`);
    process.exitCode = 2;
  },
);
