import { describe, expect, it } from 'vitest';

describe('runtime', () => {
  it('runs on the Node 24 pinned by the root devDependency, not the system Node', () => {
    expect(process.versions.node.split('.')[0]).toBe('24');
  });
});
