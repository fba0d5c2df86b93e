// A tool that asks the person before it answers: which of their companies to look at, when there is
// more than one and their client can put the question. The call ends with the question; the gateway
// asks the person and calls the tool again with the answer, which `ctx.elicit` then resolves with.
import { defineTool, ToolError, type ToolDefinition } from '@platform/tool-sdk';
import { z } from 'zod';

export const companyChoice = defineTool({
  name: 'choose_company',
  title: 'Choose a company',
  description: 'Asks you which of your companies to look at (when there are several and your client can ask), then shows what you may do there.',
  inputSchema: z.strictObject({}),
  outputSchema: z.object({ companyId: z.number(), name: z.string(), permissions: z.array(z.string()), asked: z.boolean() }),
  annotations: { readOnlyHint: true },
  handler: async (_args, ctx) => {
    const [first, ...others] = ctx.companies;
    if (!first) throw new ToolError('NO_COMPANY', 'You reach no company through this app.');
    let chosen = first;
    const asked = others.length > 0 && ctx.client.elicitation.form;
    if (asked) {
      const answer = await ctx.elicit({
        message: 'Which company should I look at?',
        requestedSchema: z.object({ company: z.enum(ctx.companies.map((company) => company.name) as [string, ...string[]]).describe('The company') }),
      });
      if (answer.action !== 'accept') throw new ToolError('NOT_CHOSEN', `No company was chosen (${answer.action}).`);
      chosen = ctx.companies.find((company) => company.name === answer.content.company) ?? first;
    }
    return { companyId: chosen.id, name: chosen.name, permissions: [...chosen.permissions].sort(), asked };
  },
});

/** The tools that ask. */
export const choiceTools: readonly ToolDefinition[] = [companyChoice];
