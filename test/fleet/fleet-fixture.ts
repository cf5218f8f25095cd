/**
 * A generated fleet repository for tests and the bench: N kustomize sites over shared types and
 * catalogues, some kpt sites with exec functions, an airshipctl-style site, and unrelated files.
 *
 *   fleet/
 *     types/{small,large}/        kustomizations (large includes small: transitive)
 *     catalogues/hosts.yaml       referenced by sites through a configMapGenerator file
 *     functions/fn.yaml           a KRM function config (exec path below) used as a transformer
 *     tools/fn.cjs                its exec
 *     sites/site-<i>/             kustomization -> types/(small|large), patches, generator files
 *     kpt/pkg-<i>/                Kptfile (pipeline configPath, exec) -> ../../types/small
 *     airship/site/               metadata.yaml (ManifestMetadata) + phase entry points
 *     docs/README.md              referenced by nothing
 */
import { git, write } from '../git-repo.js';

export interface Fleet {
  root: string;
  sites: number;
}

export function makeFleet(root: string, sites: number, kptSites = 3): Fleet {
  write(root, 'types/small/kustomization.yaml', 'resources:\n- namespace.yaml\n');
  write(root, 'types/small/namespace.yaml', 'apiVersion: v1\nkind: Namespace\nmetadata:\n  name: site\n');
  write(root, 'types/large/kustomization.yaml', 'resources:\n- ../small\n- extra.yaml\n');
  write(root, 'types/large/extra.yaml', 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: extra\n');
  write(root, 'catalogues/hosts.yaml', 'hosts: {}\n');
  write(root, 'catalogues/unused.yaml', 'unused: true\n');
  write(
    root,
    'functions/fn.yaml',
    'apiVersion: example.com/v1\nkind: Fn\nmetadata:\n  name: fn\n  annotations:\n    config.kubernetes.io/function: |\n      exec:\n        path: ../tools/fn.cjs\n',
  );
  write(root, 'tools/fn.cjs', '#!/usr/bin/env node\n');
  for (let i = 0; i < sites; i++) {
    const type = i % 2 === 0 ? 'small' : 'large';
    const fn = i % 10 === 0 ? 'transformers:\n- ../../functions/fn.yaml\n' : '';
    write(
      root,
      `sites/site-${i}/kustomization.yaml`,
      `resources:\n- ../../types/${type}\n- hosts\npatches:\n- path: patch.yaml\nconfigMapGenerator:\n- name: hosts\n  files:\n  - hosts.yaml=../../catalogues/hosts.yaml\n${fn}`,
    );
    write(root, `sites/site-${i}/patch.yaml`, `apiVersion: v1\nkind: Namespace\nmetadata:\n  name: site\n  labels:\n    site: s${i}\n`);
    write(root, `sites/site-${i}/hosts/kustomization.yaml`, 'resources:\n- host.yaml\n');
    write(root, `sites/site-${i}/hosts/host.yaml`, `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: host-${i}\n`);
  }
  for (let i = 0; i < kptSites; i++) {
    write(
      root,
      `kpt/pkg-${i}/Kptfile`,
      `apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: pkg-${i}\npipeline:\n  mutators:\n  - exec: ../../tools/fn.cjs\n    configPath: fn-config.yaml\n`,
    );
    write(root, `kpt/pkg-${i}/fn-config.yaml`, 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cfg\n');
    write(root, `kpt/pkg-${i}/kustomization.yaml`, 'resources:\n- ../../types/small\n');
  }
  write(root, 'airship/site/metadata.yaml', 'apiVersion: airshipit.org/v1alpha1\nkind: ManifestMetadata\nmetadata:\n  name: m\n');
  write(root, 'airship/site/target/workers/kustomization.yaml', 'resources:\n- ../../../../types/large\n');
  write(root, 'docs/README.md', '# fleet\n');
  git(root, 'init', '-q');
  git(root, 'add', '.');
  git(root, 'commit', '-q', '-m', 'fleet');
  return { root, sites };
}

/** Changes a file and commits; returns the range from the previous commit. */
export function commitChange(root: string, rel: string, text: string): string {
  write(root, rel, text);
  git(root, 'add', '.');
  git(root, 'commit', '-q', '-m', `change ${rel}`);
  return 'HEAD~1..HEAD';
}
