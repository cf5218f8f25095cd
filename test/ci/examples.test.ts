/**
 * The CI examples (examples/ci/), the pre-commit hooks and the plan README stay true to the
 * code: they parse as YAML, and every `baremetal-krm <command>` they run uses only options that
 * command's --help lists, with impact classes that exist.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { PLAN_HELP } from '../../src/cli/plan.js';
import { VALIDATE_HELP } from '../../src/cli/validate.js';
import { IMPACT_CLASSES } from '../../src/plan/classes.js';
import { REPORT_HELP } from '../../src/report/cli.js';
import { repoRoot } from '../golden.js';

const HELP: Record<string, string> = { validate: VALIDATE_HELP, plan: PLAN_HELP, report: REPORT_HELP };
const FILES = ['examples/ci/github-actions.yaml', 'examples/ci/gitlab-ci.yml', '.pre-commit-hooks.yaml', 'src/plan/README.md'];

describe('CI examples', () => {
  for (const f of FILES)
    it(`${f}: every baremetal-krm command uses options its --help lists`, () => {
      const text = readFileSync(join(repoRoot, f), 'utf8');
      if (/\.ya?ml$/.test(f)) expect(() => parse(text)).not.toThrow();
      const commands = [...text.matchAll(/baremetal-krm (validate|plan|report)\b([^\n]*(?:\\\n[^\n]*)*)/g)];
      expect(commands.length).toBeGreaterThan(0);
      for (const [, cmd, rest] of commands) {
        for (const [, opt] of rest!.matchAll(/(--[a-z][a-z-]+)/g)) expect(HELP[cmd!], `${cmd} ${opt}`).toContain(opt!);
        for (const [, list] of rest!.matchAll(/--fail-on[ =]([a-z,-]+)/g))
          if (cmd === 'plan') for (const c of list!.split(',')) expect(IMPACT_CLASSES as readonly string[]).toContain(c);
      }
    });
});
