import { spawnSync } from 'node:child_process';
import { mkdtempSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readStackFile, readStackFileOrAbsent, removeStackFile, stackFilePath, writeStackFile, type RecordedStack } from './stack-file.ts';
import { stackAddresses } from './processes.ts';

const dataDir = () => mkdtempSync(join(tmpdir(), 'stack-file-'));
const recorded = (pid: number): RecordedStack => ({
  command: 'npm start',
  pid,
  startedAt: '2026-11-25T10:00:00.000Z',
  addresses: stackAddresses({ PLATFORM_PORT: '4400', MCP_PORT: '3300' }, 'embedded'),
});
/** The id of a process that has ended. */
const endedPid = () => spawnSync(process.execPath, ['-e', '']).pid;

describe('the stack file', () => {
  it("lives in the services' data folder", () => {
    expect(stackFilePath({ WEBHOOK_DATA_DIR: '/srv/stack-data' })).toBe('/srv/stack-data/stack.json');
    expect(stackFilePath({})).toBe(join(process.cwd(), 'data/stack.json'));
  });

  it('records a running stack for its owner alone (mode 0600), and is removed only by the runner it names', () => {
    const file = stackFilePath({ WEBHOOK_DATA_DIR: join(dataDir(), 'not-yet-made') });
    writeStackFile(file, recorded(process.pid));
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(readStackFile(file)).toEqual({ kind: 'running', stack: recorded(process.pid) });
    removeStackFile(file, process.pid + 1);
    expect(readStackFile(file).kind).toBe('running');
    removeStackFile(file, process.pid);
    expect(readStackFile(file)).toEqual({ kind: 'absent' });
  });

  it('tells a stack whose runner is gone from a running one', () => {
    const file = stackFilePath({ WEBHOOK_DATA_DIR: dataDir() });
    writeStackFile(file, recorded(endedPid()));
    expect(readStackFile(file).kind).toBe('stopped');
  });

  it('refuses a file that is not a stack file in one line saying what to do; npm start counts it as none', () => {
    const file = stackFilePath({ WEBHOOK_DATA_DIR: dataDir() });
    for (const text of ['{"command":', JSON.stringify({ ...recorded(process.pid), addresses: { platformUrl: 'nowhere' } })]) {
      writeFileSync(file, text);
      expect(() => readStackFile(file)).toThrow(`${file} is not a stack file npm start wrote: remove it, and start the stack again`);
      expect(readStackFileOrAbsent(file)).toEqual({ kind: 'absent' });
    }
  });
});
