import { describe, expect, it } from 'vitest';
import { parseEnvironment, parseSettings, setting } from './vocabulary.ts';
import { settingsFailure } from '../testing/index.ts';

describe('the settings vocabulary', () => {
  it.each([
    ['https://platform.example/', 'https://platform.example'],
    ['http://127.0.0.1:4000', 'http://127.0.0.1:4000'],
    ['http://localhost:4000/api/', 'http://localhost:4000/api'],
    ['http://[::1]:4000', 'http://[::1]:4000'],
  ])('takes the base URL %j as %j', (value, expected) => {
    expect(parseEnvironment({ URL: setting.baseUrl }, { URL: value }).URL).toBe(expected);
  });

  it.each([
    ['plain http off loopback (tokens would travel in clear)', 'http://platform.example', 'must use https'],
    ['another scheme', 'ftp://platform.example', 'must be an absolute http or https URL'],
    ['credentials', 'https://user:pw@platform.example', 'must not carry credentials'],
    ['a query', 'https://platform.example/?token=x', 'must not carry credentials, a query'],
    ['no URL at all', 'platform', 'must be an absolute http or https URL'],
    ['a port fetch refuses', 'http://127.0.0.1:6000', 'must not use port 6000: fetch refuses to connect to it (a blocked port); choose another'],
    ['a port fetch refuses, on https', 'https://platform.example:10080/api', 'must not use port 10080: fetch refuses'],
  ])('refuses a base URL with %s', (_case, value, message) => {
    const text = settingsFailure(() => parseEnvironment({ PLATFORM_API_BASE_URL: setting.baseUrl }, { PLATFORM_API_BASE_URL: value }));
    expect(text).toContain(`PLATFORM_API_BASE_URL ${message}`);
    expect(text).not.toContain('pw@');
  });

  it('reads ports, whole numbers, flags, log levels and lists', () => {
    const parsed = parseEnvironment(
      { PORT: setting.port, N: setting.wholeNumber(1, 'seconds'), FLAG: setting.flag, LEVEL: setting.logLevel, LIST: setting.baseUrlList },
      { PORT: '4100', N: '30', FLAG: 'false', LEVEL: 'debug', LIST: 'http://127.0.0.1:3000/mcp, https://mcp.example/mcp,' },
    );
    expect(parsed).toEqual({ PORT: 4100, N: 30, FLAG: false, LEVEL: 'debug', LIST: ['http://127.0.0.1:3000/mcp', 'https://mcp.example/mcp'] });
  });

  it('names every bad variable and every cross-variable problem in one message, treating empty as unset', () => {
    const text = settingsFailure(() =>
      parseEnvironment(
        { A_PORT: setting.port, B_PORT: setting.port.default(4000), LIST: setting.baseUrlList, LEVEL: setting.logLevel.default('info') },
        { A_PORT: '4000', B_PORT: '', LIST: 'http://127.0.0.1:3000/mcp,not a url', LEVEL: 'loud' },
        (values) => (values.A_PORT !== undefined && values.A_PORT === values.B_PORT ? [['B_PORT', 'must differ from A_PORT']] : []),
      ),
    );
    expect(text).toContain('LIST must be an absolute http or https URL');
    expect(text).toContain('LEVEL must be one of fatal');
    expect(text).toContain('B_PORT must differ from A_PORT');
    expect(text).not.toContain('A_PORT must');
  });

  it.each(['65536', '-1', '80a', ' '])('refuses the port %j', (value) => {
    expect(settingsFailure(() => parseEnvironment({ P: setting.port }, { P: value }))).toMatch(/P (must be a port number|is required)/);
  });

  it.each(['6000', '6665', '10080', '1'])('refuses the HTTP port %s, which fetch refuses to connect to, saying so in one line', (value) => {
    const text = settingsFailure(() => parseEnvironment({ PLATFORM_PORT: setting.httpPort }, { PLATFORM_PORT: value }));
    expect(text).toBe(`Invalid settings: PLATFORM_PORT must not be ${value}: fetch refuses to connect to it (a blocked port); choose another.`);
  });

  it('takes any other HTTP port, and leaves ports that are not fetched (a database, gRPC) alone', () => {
    expect(parseEnvironment({ A: setting.httpPort, B: setting.httpPort.default(4000), C: setting.port }, { A: '6001', C: '6000' })).toEqual({
      A: 6001,
      B: 4000,
      C: 6000,
    });
  });

  it('names every blocked port among the other bad variables in one message', () => {
    const text = settingsFailure(() =>
      parseEnvironment(
        { PLATFORM_PORT: setting.httpPort, MCP_PORT: setting.httpPort, WEBHOOK_API_PORT: setting.httpPort, URL: setting.baseUrl },
        { PLATFORM_PORT: '6000', MCP_PORT: '6666', WEBHOOK_API_PORT: 'x', URL: 'http://127.0.0.1:6667' },
      ),
    );
    expect(text).toContain('PLATFORM_PORT must not be 6000');
    expect(text).toContain('MCP_PORT must not be 6666');
    expect(text).toContain('WEBHOOK_API_PORT must be a port number');
    expect(text).toContain('URL must not use port 6667');
  });
});

describe('parseSettings', () => {
  const service = { shape: { PORT: setting.httpPort.default(4000) }, build: (values: { PORT: number }) => ({ port: values.PORT }) };
  const metrics = {
    shape: { TOKEN: setting.text.optional(), OPEN: setting.flag.default(false) },
    check: (values: { TOKEN?: string | undefined; OPEN?: boolean | undefined }) =>
      values.TOKEN !== undefined && values.OPEN ? [['OPEN', 'must not be true when TOKEN is set'] as const] : [],
    build: (values: { TOKEN?: string | undefined; OPEN: boolean }) => ({ open: values.OPEN, token: values.TOKEN }),
  };

  it("reads every part's variables in one pass and gives each part's settings by its name", () => {
    expect(parseSettings({ PORT: '4100', OPEN: 'true' }, { service, metrics })).toEqual({ service: { port: 4100 }, metrics: { open: true, token: undefined } });
  });

  it('names the bad variables and the cross-variable problems of every part in one message', () => {
    const text = settingsFailure(() => parseSettings({ PORT: '6000', TOKEN: 'x', OPEN: 'true' }, { service, metrics }));
    expect(text).toBe(
      'Invalid settings: PORT must not be 6000: fetch refuses to connect to it (a blocked port); choose another; OPEN must not be true when TOKEN is set.',
    );
  });
});
