// `npm run demo -- --start`, the one-line try: the demo brings the stack up itself, runs every
// step against it, and stops it again.
import { describe, expect, it } from 'vitest';
import { runNpm, stackEnvironment, takenPorts } from './stack-process.ts';

describe('npm run demo -- --start', () => {
  it('starts the stack, sees every step of the demo, and stops the stack', async () => {
    const stack = await stackEnvironment();
    const demo = runNpm(['run', 'demo', '--', '--start'], stack.env);
    expect(await demo.exited, demo.output()).toBe(0);
    const output = demo.output();
    expect(output).toContain('starting the stack');
    for (let step = 1; step <= 10; step++) expect(output).toContain(`[${step}/10]`);
    expect(output).toContain('Demo complete: every step was seen.');
    expect(output).toContain('stopping the stack');
    expect(await takenPorts(stack.env)).toEqual([]);
    for (const secret of stack.secrets) expect(output).not.toContain(secret);
  }, 180_000);
});
