import express from 'express';
import { listen } from '@platform/tool-sdk/testing';
import { describe, expect, it } from 'vitest';
import { storedConfig } from '../../test/stored-config.ts';
import { publicConfig } from '../configs/config-writes.ts';
import { configTag, sendConfig } from './config-json.ts';

describe('sendConfig', () => {
  it('answers what res.json of the public view answers, headers included but its own entity tag, for a configuration kept frozen or not', async () => {
    const config = storedConfig({ authType: 'Bearer', authPayloadEncrypted: 'v1.k.iv.tag.ct', customHeaders: '{"X-Tenant":"acme"}' });
    const frozen = Object.freeze({ ...config, signingSecrets: Object.freeze({ ...config.signingSecrets }) });
    const app = express();
    app.get('/json', (_req, res) => {
      res.json(publicConfig(config));
    });
    app.get('/plain', (_req, res) => {
      sendConfig(res, config);
    });
    app.get('/frozen', (_req, res) => {
      sendConfig(res, frozen);
    });
    const server = await listen(app);
    try {
      const answer = async (path: string) => {
        const response = await fetch(`${server.url}${path}`);
        const { date: _date, ...headers } = Object.fromEntries(response.headers);
        return { status: response.status, headers, body: await response.text() };
      };
      const { etag: _jsonTag, ...json } = (await answer('/json')).headers;
      const expected = { ...(await answer('/json')), headers: { ...json, etag: configTag(config) } };
      expect(JSON.parse(expected.body)).toEqual(publicConfig(config));
      expect(expected.body).not.toContain('v1.k.iv.tag.ct');
      for (const path of ['/plain', '/frozen', '/frozen']) expect(await answer(path)).toEqual(expected);
      // The tag is strong, and covers the stored credentials the body leaves out.
      expect(configTag(config)).toMatch(/^"[\w-]{27}"$/);
      expect(configTag({ ...config, authPayloadEncrypted: 'v1.k.iv2.tag.ct2' })).not.toBe(configTag(config));
      expect(configTag({ ...config })).toBe(configTag(config));
    } finally {
      await server.close();
    }
  });
});
