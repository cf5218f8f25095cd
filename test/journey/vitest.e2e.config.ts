// The journey's end-to-end tests (real kpt, kubectl kustomize, podman, the Redfish simulator).
// Run: npx vitest run --config test/journey/vitest.e2e.config.ts
// (The root vitest.e2e.config.ts does not include test/journey yet: see the journey's report.)
import { join } from 'node:path';
import { defineConfig } from 'vitest/config';
import base from '../../vitest.e2e.config.js';

export default defineConfig({
  ...base,
  root: join(import.meta.dirname, '../..'),
  test: { ...base.test, include: ['test/journey/**/*.e2e.test.ts'] },
});
