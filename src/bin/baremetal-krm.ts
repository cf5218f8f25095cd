/**
 * The `baremetal-krm` command: subcommands over the library. `validate <files...>` runs
 * intent-validate on files (pre-commit hook, CI); `report <sites...>` reports across sites.
 */
import { FLEET_HELP, runFleet } from '../cli/fleet.js';
import { PLAN_HELP, runPlan } from '../cli/plan.js';
import { runValidate, VALIDATE_HELP } from '../cli/validate.js';
import { REPORT_HELP, reportMain } from '../report/cli.js';
import { RENDER_HELP, runRender } from '../cli/render.js';
import { redactText } from '../secrets/redact.js';
import { missingInstallFile, OutputClosed, OutputFailed, writeNow } from '../krm/index.js';

const HELP = `baremetal-krm <command> [options]

Commands:
  validate [--config FILE] FILE|FOLDER|-... validate bare-metal intent in YAML files or stdin (intent-validate rules)
  report [options] SITE...           one report across many sites: certificates, hardware, divergence,
                                     workloads, security, capacity (text, json, markdown, html, sarif, junit)
  plan [options] BASE HEAD           what a change does to the fleet (deprovision, power off, ...);
  plan [options] --git RANGE [PATH]  both sides from git commits
  render SITE --out DIR              kpt fn render the package SITE and flatten it into DIR, the folder Flux applies
  fleet sites [ROOT] [--changed A..B] the site packages of a fleet repository (those a change touches), as a CI matrix
  help [command]                     this help, or a command's

Run \`baremetal-krm <command> --help\` for a command's options.
`;

const COMMANDS: Record<
  string,
  { run: (argv: string[], io: { out: (s: string) => void; err: (s: string) => void }) => Promise<number>; help: string }
> = {
  validate: { run: runValidate, help: VALIDATE_HELP },
  report: { run: (argv, io) => reportMain(argv, io), help: REPORT_HELP },
  plan: { run: runPlan, help: PLAN_HELP },
  render: { run: runRender, help: RENDER_HELP },
  fleet: { run: runFleet, help: FLEET_HELP },
};

async function main(argv: string[]): Promise<number> {
  // written now, not queued in the process streams: a pipe's stream would hold every line until the run ends
  const io = { out: (s: string) => writeNow(1, s), err: (s: string) => writeNow(2, s) };
  const [cmd, ...rest] = argv;
  if (!cmd || cmd === '--help' || cmd === '-h' || cmd === 'help') {
    const c = rest[0] ? COMMANDS[rest[0]] : undefined;
    io.out(c ? c.help : HELP);
    return 0;
  }
  const c = COMMANDS[cmd];
  if (!c) {
    io.err(`baremetal-krm: unknown command "${cmd}"\n\n${HELP}`);
    return 2;
  }
  return c.run(rest, io);
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (e: unknown) => {
    process.exitCode = 1;
    // the reader of stdout or stderr went away (`| head`): nothing to say, no one to say it to
    if (e instanceof OutputClosed) return;
    if (e instanceof OutputFailed) {
      if (e.fd === 1) process.stderr.write(`baremetal-krm: error: ${e.message}\n`);
      return;
    }
    const missing = missingInstallFile(e);
    if (missing) {
      process.exitCode = 2;
      process.stderr.write(`baremetal-krm: error: ${missing}\n`);
      return;
    }
    process.stderr.write(`baremetal-krm: internal error: ${redactText((e as Error).stack ?? String(e))}\n`);
  },
);
