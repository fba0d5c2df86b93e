// Runs the failing fixture alone (devtools/src/test-processes.test.ts).
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: { root: import.meta.dirname, include: ['*.fixture.ts'] },
});
