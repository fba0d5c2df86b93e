import { describe, expect, it } from 'vitest';
import { takenPort } from './stack-runner.ts';
import { stackProcesses } from './stack.ts';

const seed = { person: 'oscar', secretNames: [] };

describe('the port check before anything starts', () => {
  it('refuses two variables that name the same port, naming both', async () => {
    const processes = stackProcesses({ MCP_PORT: '39001', REGISTRY_ADDRESS: '127.0.0.1:39001' }, {}, 'embedded', seed);
    expect(await takenPort(processes)).toBe('MCP_PORT and REGISTRY_ADDRESS name the same port, 39001; set one of them to another port.');
  });
});
