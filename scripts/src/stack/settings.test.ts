import { settingsFailure } from '@platform/tool-sdk/testing';
import { describe, expect, it } from 'vitest';
import { loadLocalPostgresPort, loadOutputFormat } from './settings.ts';

describe("the scripts' own settings", () => {
  it("shows the services' output formatted unless LOG_FORMAT=json, and names a value it does not know", () => {
    expect(loadOutputFormat({})).toBe('pretty');
    expect(loadOutputFormat({ LOG_FORMAT: '' })).toBe('pretty');
    expect(loadOutputFormat({ LOG_FORMAT: 'json' })).toBe('json');
    expect(settingsFailure(() => loadOutputFormat({ LOG_FORMAT: 'raw' }))).toContain('LOG_FORMAT must be json or pretty');
  });

  it("puts start:pg's own cluster on 5433 unless STACK_POSTGRES_PORT moves it, and refuses a port that is not one", () => {
    expect(loadLocalPostgresPort({})).toBe(5433);
    expect(loadLocalPostgresPort({ STACK_POSTGRES_PORT: '6543' })).toBe(6543);
    expect(settingsFailure(() => loadLocalPostgresPort({ STACK_POSTGRES_PORT: 'x' }))).toContain('STACK_POSTGRES_PORT must be a port number');
    expect(settingsFailure(() => loadLocalPostgresPort({ STACK_POSTGRES_PORT: '0' }))).toContain('STACK_POSTGRES_PORT must not be 0');
  });
});
