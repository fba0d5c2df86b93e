import { spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { stackFilePath, writeStackFile } from './stack-file.ts';
import { locateStack } from './locator.ts';
import { stackAddresses } from './processes.ts';

/** A data folder holding the stack file of a stack on moved ports, run by `pid`. */
function recordedStack(pid: number) {
  const env = { WEBHOOK_DATA_DIR: mkdtempSync(join(tmpdir(), 'stack-locator-')) };
  const addresses = stackAddresses({ PLATFORM_PORT: '4400', MCP_PORT: '3300', WEBHOOK_API_PORT: '4500', DEMO_RECEIVER_PORT: '4950' }, 'embedded');
  const file = stackFilePath(env);
  writeStackFile(file, { command: 'npm start', pid, startedAt: '2026-11-25T10:00:00.000Z', addresses });
  return { env, addresses, file };
}

describe('the stack a second terminal talks to', () => {
  it('is the one the stack file records when no variable places one, said in one line', () => {
    const { env, addresses, file } = recordedStack(process.pid);
    const found = locateStack(env);
    expect(found.addresses).toEqual(addresses);
    expect(found.found).toMatch(
      new RegExp(`^using the stack npm start started at .+ \\(${file}\\): platform http://127\\.0\\.0\\.1:4400, MCP http://127\\.0\\.0\\.1:3300/mcp$`),
    );
    expect(found.unreachable).toBe(`${file} names it, but nothing answers at http://127.0.0.1:4400`);
    // The receiver is the demo's own: this terminal may move it.
    expect(locateStack({ ...env, DEMO_RECEIVER_PORT: '4960' }).addresses).toEqual({ ...addresses, receiverUrl: 'http://127.0.0.1:4960' });
  });

  it('is the one the variables place when any is set, whatever the stack file records', () => {
    const { env } = recordedStack(process.pid);
    const placed = locateStack({ ...env, PLATFORM_PORT: '4700' });
    expect(placed.addresses.platformUrl).toBe('http://127.0.0.1:4700');
    expect(placed.addresses.mcpUrl).toBe('http://127.0.0.1:3000/mcp');
    expect(placed.found).toBe('using the stack at http://127.0.0.1:4700 (PLATFORM_PORT set)');
    expect(placed.unreachable).toBe('nothing answers at http://127.0.0.1:4700');
  });

  it('is at the default addresses, said as such, when no stack file records a running stack', () => {
    const none = { WEBHOOK_DATA_DIR: mkdtempSync(join(tmpdir(), 'stack-locator-')) };
    const absent = locateStack(none);
    expect(absent.addresses.platformUrl).toBe('http://127.0.0.1:4000');
    expect(absent.unreachable).toBe(`no ${stackFilePath(none)}, and nothing answers at the default address http://127.0.0.1:4000`);
    expect(absent.found).toBe(`using the stack at the default address http://127.0.0.1:4000 (no ${stackFilePath(none)})`);

    const { env, file } = recordedStack(spawnSync(process.execPath, ['-e', '']).pid);
    expect(locateStack(env).unreachable).toMatch(
      new RegExp(
        `^the stack ${file} names stopped without removing it \\(npm start, pid \\d+\\), and nothing answers at the default address http://127\\.0\\.0\\.1:4000$`,
      ),
    );
  });
});
