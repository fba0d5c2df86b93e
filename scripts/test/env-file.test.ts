// `.env` as .env.example says: the demo, npm run token and start:pg read it (Node's own
// process.loadEnvFile, see dot-env.ts), in a project copy of the test's own, so the repository's own
// .env is never touched. That npm start reads it, under what the environment sets, is shown by the
// stack npm-start.test.ts starts from such a copy.
import { describe, expect, it } from 'vitest';
import { projectCopy, runNpm, shellVariables, stackSecrets } from './stack-process.ts';

describe('.env', () => {
  it('is read by npm run demo, npm run token and npm run start:pg: a bad value there is named as if it were set', async () => {
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
