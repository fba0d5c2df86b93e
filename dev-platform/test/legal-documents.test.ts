// A company's administrator publishes legal documents for their own company only: an id another
// company uses names a document of its own, and never touches the other company's.
import { startedForTests } from '@platform/tool-sdk/testing';
import { describe, expect, it } from 'vitest';
import { getJson, personToken, sendJson, startPlatform } from './harness.ts';

const running = startedForTests(() => startPlatform(), { per: 'test' });
const api = () => running().issuer;

interface LegalDocument {
  id: string;
  companyId: number;
  title: string;
  version: string;
  url: string;
}

const legalDocuments = async (username: string) =>
  (await getJson(`${api()}/api/me/legal-documents`, await personToken(api(), username))).body as LegalDocument[];

describe('legal documents', () => {
  const acmeTerms = { id: 'acme-terms-2026', companyId: 1, title: 'Acme terms of use', version: '2026-01', url: 'https://legal.acme.example/terms/2026-01' };

  it("never overwrites another company's document that has the same id", async () => {
    const bjorn = await personToken(api(), 'bjorn');
    const published = await sendJson('POST', `${api()}/api/companies/3/legal-documents`, bjorn, {
      id: 'acme-terms-2026',
      title: 'Borealis terms',
      version: '1',
      url: 'https://legal.borealis.example/terms',
    });
    expect(published).toMatchObject({ status: 201, body: { id: 'acme-terms-2026', companyId: 3 } });
    expect(await legalDocuments('olivia')).toEqual([acmeTerms]);
    expect((await legalDocuments('bjorn')).map((d) => [d.companyId, d.id, d.title])).toEqual([
      [3, 'borealis-dpa-2026', 'Borealis data processing agreement'],
      [3, 'acme-terms-2026', 'Borealis terms'],
    ]);
  });

  it("replaces the company's own document with the same id", async () => {
    const olivia = await personToken(api(), 'olivia');
    const next = { id: 'acme-terms-2026', title: 'Acme terms of use', version: '2026-02', url: 'https://legal.acme.example/terms/2026-02' };
    expect((await sendJson('POST', `${api()}/api/companies/1/legal-documents`, olivia, next)).status).toBe(201);
    expect(await legalDocuments('olivia')).toEqual([{ ...next, companyId: 1 }]);
    expect((await legalDocuments('bjorn')).map((d) => d.id)).toEqual(['borealis-dpa-2026']);
  });
});
