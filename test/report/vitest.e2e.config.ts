import { defineConfig } from 'vitest/config';

// End-to-end tests of the report (real kubectl, headless Chromium). The root
// vitest.e2e.config.ts only includes test/e2e/** and functions/**, so these run with:
//   npx vitest run --config test/report/vitest.e2e.config.ts
export default defineConfig({
  test: {
    root: new URL('../..', import.meta.url).pathname,
    include: ['test/report/**/*.e2e.test.ts'],
    testTimeout: 120_000,
    hookTimeout: 120_000,
    fileParallelism: false,
  },
});
