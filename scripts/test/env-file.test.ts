// `.env` as .env.example says: npm start, start:pg, the demo and npm run token read it (Node's own
// process.loadEnvFile, see dot-env.ts), and the environment wins over it. Each
// test runs the commands in a project copy of its own, so the repository's own .env is never touched.
import { describe, expect, it } from 'vitest';
import { personToken } from '../src/stack/platform-session.ts';
import { projectCopy, runNpm, shellVariables, stackEnvironment, stackSecrets, takenPorts } from './stack-process.ts';

describe('.env', () => {
  it('reaches the services npm start runs, under what the environment sets', async () => {
    const stack = await stackEnvironment();
    // A variable only the dev platform reads, and a port the environment moves elsewhere (1 would be refused).
    const project = projectCopy('PLATFORM_ACCESS_TOKEN_TTL_SECONDS=1234\nPLATFORM_PORT=1\n');
    const run = runNpm(['start'], stack.env, project);
    try {
      await run.waitForLine('The stack is ready.', 90_000);
      const token = await personToken(stack.platformUrl, 'oscar');
      expect(token.expiresIn).toBe(1234);
    } finally {
      run.interrupt();
      await run.waitForLine('npm start    | stopped', 30_000);
    }
    expect(await takenPorts(stack.env)).toEqual([]);
    for (const secret of stack.secrets) expect(run.output()).not.toContain(secret);
  }, 150_000);

  it('is read by npm run demo, npm run token and npm run start:pg too: a bad value there is named as if it were set', async () => {
    const project = projectCopy('PLATFORM_PORT=x\nSTACK_POSTGRES_PORT=x\n');
    const env = { ...shellVariables(), ...stackSecrets };
    const [demo, token, startPg] = [
      runNpm(['run', '-s', 'demo'], env, project),
      runNpm(['run', '-s', 'token', '--', 'oscar'], env, project),
      runNpm(['run', '-s', 'start:pg'], env, project),
    ];
    expect(await demo.exited).toBe(2);
    expect(demo.output()).toContain('npm run demo: Invalid settings: PLATFORM_PORT must be a port number (0 to 65535).');
    expect(await token.exited).toBe(2);
    expect(token.output()).toContain('npm run token: Invalid settings: PLATFORM_PORT must be a port number (0 to 65535).');
    expect(await startPg.exited).toBe(1);
    expect(startPg.output()).toContain('start:pg cannot start PostgreSQL: Invalid settings: STACK_POSTGRES_PORT must be a port number (0 to 65535).');
  });
});
