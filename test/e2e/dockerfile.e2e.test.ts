/**
 * The Dockerfile builds the bundles itself (stage dist-build: npm ci and the build), so an image
 * does not depend on a host dist/: built that way (scripts/build-images.sh with FROM_SOURCE=1, the
 * local builder image of scripts/builder-image.sh, npm registry access), the image holds exactly
 * the bytes of the host's build (the build is reproducible: the launcher, the code in lib/ and
 * lazy/) and carries the OCI labels. The V8 code cache (lib/<fn>.cache) is not byte-reproducible
 * (V8 seeds its hashes at random): the image's must be there and be used by the image's node.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { haveBinary, listFiles, repoRoot, run, tempDir } from './helpers.js';

const fn = 'intent-validate';
const image = `localhost/baremetal-krm/${fn}:from-source`;
const version = (JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as { version: string }).version;

describe.skipIf(!haveBinary('podman') || !haveBinary('busybox'))('Dockerfile', () => {
  it('builds the bundles from source: the image holds the host build, byte for byte, and its labels', () => {
    const build = run('bash', [join(repoRoot, 'scripts/build-images.sh'), fn], {
      cwd: repoRoot,
      env: { FROM_SOURCE: '1', TAG: 'from-source' },
    });
    expect(build.status, build.stderr).toBe(0);
    const out = tempDir('dockerfile');
    const c = run('podman', ['create', image]);
    expect(c.status, c.stderr).toBe(0);
    const id = c.stdout.trim();
    const cp = run('podman', ['cp', `${id}:/usr/local/lib/baremetal-krm`, join(out, 'image')]);
    run('podman', ['rm', id]);
    expect(cp.status, cp.stderr).toBe(0);
    const files = listFiles(join(out, 'image'));
    expect(files).toEqual(
      [`${fn}.cjs`, `lib/${fn}.cache`, `lib/${fn}.js`, ...listFiles(join(repoRoot, 'dist/lazy')).map((f) => `lazy/${f}`)].sort(),
    );
    for (const f of files.filter((f) => !f.endsWith('.cache')))
      expect(readFileSync(join(out, 'image', f)).equals(readFileSync(join(repoRoot, 'dist', f))), f).toBe(true);
    const used = run('podman', ['run', '--rm', '-i', '-e', 'BAREMETAL_KRM_CODE_CACHE=report', image], {
      input: 'apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems: []\n',
    });
    expect(used.stderr).toContain(`${fn}: code cache used`);
    const labels = JSON.parse(run('podman', ['image', 'inspect', '--format', '{{json .Config.Labels}}', image]).stdout) as Record<
      string,
      string
    >;
    expect(labels['org.opencontainers.image.version']).toBe(version);
    expect(labels['org.opencontainers.image.source']).toMatch(/^https:\/\//);
    expect(labels['org.opencontainers.image.title']).toBe(fn);
  });
});
