import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { request } from 'node:https';
import { createTestPki, type TestPki } from '@platform/devtools/test-certificates';
import { beforeAll, describe, expect, it } from 'vitest';
import { createHttpsServer, httpTlsProblems, toHttpTlsSettings } from './tls.ts';
import { closeServer, listenOn } from '../service/lifecycle.ts';

let pki: TestPki;
beforeAll(async () => {
  pki = await createTestPki();
}, 30_000);

const port = (value: number | undefined) => ({ variable: 'SERVICE_TLS_PORT', value });
const problems = (values: Record<string, string | undefined>, value: number | undefined) => [...httpTlsProblems(values, port(value))];

describe('httpTlsProblems', () => {
  it('accepts none of the three, or all three with a certificate and its key', () => {
    expect(problems({}, undefined)).toEqual([]);
    expect(problems({ HTTP_TLS_CERT_FILE: pki.server.certFile, HTTP_TLS_KEY_FILE: pki.server.keyFile }, 4443)).toEqual([]);
  });

  it('wants the port and both files together', () => {
    expect(problems({}, 4443)).toEqual([
      ['HTTP_TLS_CERT_FILE', 'is required with SERVICE_TLS_PORT'],
      ['HTTP_TLS_KEY_FILE', 'is required with SERVICE_TLS_PORT'],
    ]);
    expect(problems({ HTTP_TLS_CERT_FILE: pki.server.certFile }, undefined)).toEqual([
      ['HTTP_TLS_CERT_FILE', 'needs SERVICE_TLS_PORT, HTTP_TLS_CERT_FILE and HTTP_TLS_KEY_FILE together'],
    ]);
  });

  it('names the file, never its content, for a key of another certificate, an expired certificate or a file that is no certificate', () => {
    expect(problems({ HTTP_TLS_CERT_FILE: pki.server.certFile, HTTP_TLS_KEY_FILE: pki.client.keyFile }, 4443)).toEqual([
      ['HTTP_TLS_KEY_FILE', `${pki.client.keyFile} is not the key of ${pki.server.certFile}`],
    ]);
    const [expired] = problems({ HTTP_TLS_CERT_FILE: pki.expired.certFile, HTTP_TLS_KEY_FILE: pki.expired.keyFile }, 4443);
    expect(expired?.[1]).toMatch(new RegExp(`^${pki.expired.certFile} expired on `));
    expect(problems({ HTTP_TLS_CERT_FILE: pki.server.keyFile, HTTP_TLS_KEY_FILE: pki.server.keyFile }, 4443)).toEqual([
      ['HTTP_TLS_CERT_FILE', `${pki.server.keyFile} is not a PEM certificate`],
    ]);
    const all = JSON.stringify(problems({ HTTP_TLS_CERT_FILE: pki.server.certFile, HTTP_TLS_KEY_FILE: pki.client.keyFile }, 4443));
    expect(all).not.toContain('PRIVATE KEY');
  });

  it('gives the listener settings only when all three are set', () => {
    expect(toHttpTlsSettings({ HTTP_TLS_CERT_FILE: pki.server.certFile, HTTP_TLS_KEY_FILE: pki.server.keyFile }, 4443)).toEqual({
      port: 4443,
      certFile: pki.server.certFile,
      keyFile: pki.server.keyFile,
    });
    expect(toHttpTlsSettings({ HTTP_TLS_CERT_FILE: pki.server.certFile, HTTP_TLS_KEY_FILE: pki.server.keyFile }, undefined)).toBeUndefined();
  });
});

describe('createHttpsServer', () => {
  it('serves the app over TLS with the certificate, to a client trusting its CA', async () => {
    const server = createHttpsServer((_req, res) => res.end('over tls'), pki.server);
    await listenOn(server, { host: '127.0.0.1', port: 0, portVariable: 'SERVICE_TLS_PORT' });
    try {
      const { port: bound } = server.address() as AddressInfo;
      const answer = request({ host: '127.0.0.1', port: bound, path: '/', ca: readFileSync(pki.caFile) }).end();
      // The request verifies the certificate against the CA and the host (rejectUnauthorized, the default).
      const [response] = (await once(answer, 'response')) as [NodeJS.ReadableStream];
      let body = '';
      for await (const chunk of response) body += String(chunk);
      expect(body).toBe('over tls');
    } finally {
      await closeServer(server);
    }
  });
});
