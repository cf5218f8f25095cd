/**
 * The type folders a new site points at: each phase kustomization.yaml lists `<type>/<phase>`
 * (and phases/ lists the type's plan with `phasePlan.fromType`). A function sees only its package:
 * when the type is inside it, a folder without a kustomization file is an error (the site would
 * not build); when it is outside, a warning names the paths that could not be checked.
 */
import { posix } from 'node:path';
import type { Context } from '../../src/krm/index.js';
import type { Spec } from './spec.js';

/** The names kustomize accepts for a folder's kustomization file. */
const KUSTOMIZATION_FILES = ['kustomization.yaml', 'kustomization.yml', 'Kustomization'];

export function checkTypeFolders<S>(ctx: Context<S>, site: NonNullable<Spec['site']>, dirs: string[], base: string): void {
  const typeDir = posix.normalize(posix.join(base, site.type));
  const wanted = dirs.map((d, i) => ({ folder: d, field: `spec.site.phases[${i}].path` }));
  const fromType = site.phasePlan?.fromType;
  if (fromType !== undefined) wanted.push({ folder: posix.normalize(fromType), field: 'spec.site.phasePlan.fromType' });
  if (typeDir === '..' || typeDir.startsWith('../') || posix.isAbsolute(typeDir)) {
    ctx.results.warning(
      `spec.site.type ${site.type} is outside the package (${typeDir} from the package root): the function cannot see it, so it did not check that the type has the folders the site's kustomization.yaml files point at (${[...new Set(wanted.map((w) => w.folder))].join(', ')}); build each phase folder with \`kubectl kustomize\`, or run the function on a package that holds the type`,
      { field: 'spec.site.type', rule: 'site/type-not-checked' },
    );
    return;
  }
  const files = new Set(ctx.items.flatMap((o) => o.file()?.path ?? []));
  for (const w of wanted) {
    const folder = posix.join(typeDir, w.folder);
    if (KUSTOMIZATION_FILES.some((f) => files.has(posix.join(folder, f)))) continue;
    ctx.results.error(
      `${w.field}: the type has no folder ${folder} (no kustomization.yaml there in the package), which the site's kustomization.yaml would list: it would not build; add the folder to the type ${site.type}, or remove the phase`,
      { field: w.field, rule: 'site/missing-type-folder' },
    );
  }
}
