/** `baremetal-krm render SITE --out DIR`: render a kpt package and flatten it into the folder Flux applies. */
import { RenderError, renderSite } from '../gitops/render.js';
import { WriteError } from '../gitops/write-tree.js';
import { SopsConfigError } from '../sops/index.js';
import { parseCommandArgs, UsageError } from './args.js';
import type { CliIo } from './validate.js';

export const RENDER_HELP = `baremetal-krm render SITE --out DIR [--no-kpt]

Renders the kpt package SITE (kpt fn render --allow-exec: its Kptfile pipeline) and flattens it
into DIR, the folder Flux applies:
  - only what a cluster should get: local-config items, function configs, the Kptfile and the
    kpt/kustomize location annotations are dropped; one file per object,
    DIR/<folder>/<kind>_<name>.yaml, in the package's folders;
  - a kustomization.yaml per entry folder (each folder a Flux Kustomization's spec.path names,
    and the top folders of everything else); when the package holds Flux objects, the root
    DIR/kustomization.yaml lists only their folders, so applying the root applies the phases
    only through their Kustomizations, in order.
Idempotent (unchanged files are not rewritten); writes only inside DIR, and only into a new
folder, one empty but for dot-files (a fresh Git checkout), or one an earlier render wrote. It
removes only files an earlier render wrote (its kustomization.yaml files list them) and never
touches anything else: .git, .sops.yaml, .github/, README.md survive. Nothing is written when the
render or a check fails. A Secret with a plaintext credential (not SOPS-encrypted) is an error:
render never writes one into DIR.
SOPS: the nearest .sops.yaml above SITE is passed to the functions as SOPS_CONFIG.

  --out DIR    the output folder (required)
  --no-kpt     SITE is rendered already: only flatten
Environment: KPT (the kpt binary), SOPS_CONFIG, and whatever the package's functions read
(BMC_USERNAME/BMC_PASSWORD, SOPS_AGE_KEY_FILE, ...).
`;

export async function runRender(argv: string[], io: CliIo): Promise<number> {
  let args: ReturnType<typeof parseCommandArgs>;
  let out: string | undefined;
  try {
    args = parseCommandArgs(argv, ['out'], ['no-kpt']);
    out = args.one('out');
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    io.err(`baremetal-krm render: ${e.message} (see --help)\n`);
    return 2;
  }
  if (args.flag('help')) {
    io.out(RENDER_HELP);
    return 0;
  }
  if (args.positional.length !== 1 || !out) {
    io.err('baremetal-krm render: give one SITE and --out DIR (see --help)\n');
    return 2;
  }
  try {
    const r = renderSite({
      site: args.positional[0]!,
      out,
      noKpt: args.flag('no-kpt'),
      env: process.env,
      log: (s) => io.err(`${s}\n`),
    });
    for (const p of r.problems) io.err(`${p.severity}: ${p.message}\n`);
    if (!r.summary) {
      io.err(`baremetal-krm render: nothing written to ${out}\n`);
      return 1;
    }
    const s = r.summary;
    io.out(
      `${out}: ${r.kept} object(s) (${r.dropped} local-config/function item(s) dropped); ${s.written.length} file(s) written, ${s.removed.length} removed, ${s.unchanged} unchanged\n`,
    );
    return 0;
  } catch (e) {
    if (e instanceof RenderError || e instanceof WriteError || e instanceof SopsConfigError) {
      io.err(`baremetal-krm render: ${e.message}\n`);
      return 1;
    }
    throw e;
  }
}
