import { defineConfig } from 'vitest/config';

// End-to-end: the real kpt, kubectl kustomize and podman. Files run one at a time (2 cores,
// container builds), each test may take minutes.
export default defineConfig({
  test: {
    include: ['test/**/*.e2e.test.ts', 'functions/**/*.e2e.test.ts'],
    testTimeout: 600_000,
    hookTimeout: 1_200_000,
    fileParallelism: false,
  },
});
