// An answer of the platform or the webhook API, read through the schema the tool relies on: fields
// beyond it are dropped (a credential never rides along), and an answer of another shape becomes a
// tool error the agent can read, not a crash of the call.
import { ToolError } from '@platform/tool-sdk/tools';
import type { z } from 'zod';

export function shapedAnswer<Schema extends z.ZodType>(schema: Schema, answer: unknown, from: string, what: string): z.output<Schema> {
  const parsed = schema.safeParse(answer);
  if (parsed.success) return parsed.data;
  throw new ToolError('BAD_RESPONSE', `${from} answered ${what} with something this tool does not understand; try again later.`, { cause: parsed.error });
}
