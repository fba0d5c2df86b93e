// Who is calling: the person behind a token, the audiences it was issued for, the app it was
// delegated to (if any), and their companies with per-company permissions, as the platform's
// GET /api/me reports them.
import { z } from 'zod';

/** One company the caller reaches, with the permissions the token holds there. */
export interface CallerCompany {
  /** The company, as a platform company id (the `companyId` of the tools). */
  readonly id: number;
  /** The company's name. */
  readonly name: string;
  /** Always false under delegation. */
  readonly isOwner: boolean;
  /** Empty under delegation. */
  readonly roles: readonly string[];
  /** Already narrowed to what the person and the app may both do when the token is delegated. */
  readonly permissions: ReadonlySet<string>;
}

/** The person behind a token, as the platform answers `GET /api/me`: id, audience, actor and companies. */
export interface Caller {
  /** The person, as a platform user id. */
  readonly id: string;
  /** The audiences the token was issued for (the platform API, or an MCP server). */
  readonly audience: readonly string[];
  /** The app a delegated token was issued to; undefined for a person's own token or API token. */
  readonly actor: { readonly clientId: string } | undefined;
  /** The companies the token reaches, each with its permissions; empty for a valid token with none. */
  readonly companies: readonly CallerCompany[];
}

/** The zod schema of the platform's `GET /api/me` answer. */
export const meResponseSchema = z.object({
  id: z.union([z.string().min(1), z.number().int()]).transform(String),
  audience: z.union([
    z
      .string()
      .min(1)
      .transform((aud) => [aud]),
    z.array(z.string().min(1)).min(1),
  ]),
  actor: z.object({ clientId: z.string().min(1) }).nullish(),
  companies: z.array(
    z.object({
      id: z.number().int(),
      name: z.string(),
      isOwner: z.boolean(),
      roles: z.array(z.string()),
      permissions: z.array(z.string()),
    }),
  ),
});

/** GET /api/me's answer as the platform sends it: the contract between the platform and every caller check. */
export type MeAnswer = z.input<typeof meResponseSchema>;

/** The `Caller` of a checked `GET /api/me` answer. */
export function toCaller(me: z.output<typeof meResponseSchema>): Caller {
  return Object.freeze({
    id: me.id,
    audience: Object.freeze([...me.audience]),
    actor: me.actor ? Object.freeze({ clientId: me.actor.clientId }) : undefined,
    companies: Object.freeze(
      me.companies.map((company) =>
        Object.freeze({
          id: company.id,
          name: company.name,
          isOwner: company.isOwner,
          roles: Object.freeze([...company.roles]),
          permissions: new Set(company.permissions),
        }),
      ),
    ),
  });
}
