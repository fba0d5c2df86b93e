// A tool that asks the person, served for real and called as the gateway calls it: first the call
// ends with the question (a form with the caller's companies to choose from); called again with the
// person's answer, the tool finds it and answers. A client that cannot ask gets the first company.
import { toolClient } from '@platform/tool-sdk/testing';
import { describe, expect, it } from 'vitest';
import { choiceTools } from '../src/company-choice.tools.ts';
import { servedForTests } from './served-tools.ts';

const { served, stageCaller } = servedForTests(choiceTools);

/** The caller's companies, the two the tool offers to choose from. */
const companies = [
  { id: 1, name: 'Acme', isOwner: false, roles: ['operator'], permissions: ['device-overview:view', 'device-overview:manage'] },
  { id: 2, name: 'Acme Field', isOwner: false, roles: ['viewer'], permissions: ['device-overview:view'] },
];

describe('choose_company', () => {
  it('asks the person which company, then answers for the one they chose', async () => {
    stageCaller('token-a', companies);
    const client = toolClient(served().address);
    try {
      const asking = { client: { elicitationForm: true } };
      const first = await client.call('choose_company', {}, 'token-a', asking);
      if (!first.ok || !first.inputRequired) throw new Error(`expected a question, got ${JSON.stringify(first)}`);
      const [[key, question] = []] = Object.entries(first.inputRequired);
      expect(question?.form?.message).toBe('Which company should I look at?');
      expect(JSON.parse(question?.form?.requestedSchemaJson ?? '{}')).toMatchObject({ properties: { company: { enum: ['Acme', 'Acme Field'] } } });

      const answered = await client.call('choose_company', {}, 'token-a', {
        ...asking,
        inputResponses: { [key ?? '']: { action: 'accept', content: { company: 'Acme Field' } } },
      });
      expect(answered).toMatchObject({
        ok: true,
        isError: false,
        result: { companyId: 2, name: 'Acme Field', permissions: ['device-overview:view'], asked: true },
      });
    } finally {
      client.close();
    }
  });

  it('takes the first company when the client cannot ask the person', async () => {
    stageCaller('token-b', companies);
    const client = toolClient(served().address);
    try {
      expect(await client.call('choose_company', {}, 'token-b')).toMatchObject({ ok: true, result: { companyId: 1, asked: false } });
    } finally {
      client.close();
    }
  });
});
