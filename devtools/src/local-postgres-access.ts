// Who may connect to start:pg's own PostgreSQL cluster, and what each may touch: password (SCRAM)
// authentication on loopback only, the superuser's password generated beside the stack's other
// secrets, and one role per service, each owning its own schema and nothing else: the webhook API
// and its deliverers (webhook_api) the public schema, the gateway (mcp_gateway) mcp_registry. So
// neither can read the other's tables, and a local process without the password reaches nothing.

/** The secrets of the cluster, in data/dev-secrets.env under these names (base64url, so they fit a URL as they are). */
export const localPostgresSecretNames = {
  superuser: 'STACK_POSTGRES_PASSWORD',
  gateway: 'STACK_POSTGRES_GATEWAY_PASSWORD',
  webhook: 'STACK_POSTGRES_WEBHOOK_PASSWORD',
} as const;

export type LocalPostgresSecrets = Readonly<Record<keyof typeof localPostgresSecretNames, string>>;

/** The roles the services connect as, and the schema each owns. */
export const localPostgresRoles = { gateway: { role: 'mcp_gateway', schema: 'mcp_registry' }, webhook: { role: 'webhook_api', schema: 'public' } } as const;

/** pg_hba.conf: every connection, socket or loopback TCP, with a SCRAM password; nothing else. */
export const passwordOnlyHba = `# Written by npm run start:pg: password (SCRAM) authentication only, on loopback only.
local all all scram-sha-256
host all all 127.0.0.1/32 scram-sha-256
host all all ::1/128 scram-sha-256
`;

/** A password as an SQL literal; the generated ones are base64url, refused otherwise so nothing can be injected. */
export function passwordLiteral(password: string): string {
  if (!/^[A-Za-z0-9_-]{16,}$/.test(password)) throw new Error('a start:pg database password must be 16 or more of A-Z, a-z, 0-9, - and _');
  return `'${password}'`;
}

/**
 * The statements, run as the superuser on `database`, that make the services' roles (or set their
 * passwords again), give each its schema, and hand each the tables an older start:pg left to the superuser.
 */
export function accessStatements(database: string, secrets: LocalPostgresSecrets): string {
  const { gateway, webhook } = localPostgresRoles;
  const owner = `CASE n.nspname WHEN '${webhook.schema}' THEN '${webhook.role}' ELSE '${gateway.role}' END`;
  return `
DO $$ BEGIN
  IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = '${gateway.role}') THEN CREATE ROLE ${gateway.role}; END IF;
  IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = '${webhook.role}') THEN CREATE ROLE ${webhook.role}; END IF;
END $$;
ALTER ROLE ${gateway.role} WITH LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOBYPASSRLS PASSWORD ${passwordLiteral(secrets.gateway)};
ALTER ROLE ${webhook.role} WITH LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOBYPASSRLS PASSWORD ${passwordLiteral(secrets.webhook)};
REVOKE ALL ON DATABASE ${database} FROM PUBLIC;
GRANT CONNECT ON DATABASE ${database} TO ${gateway.role}, ${webhook.role};
REVOKE ALL ON SCHEMA public FROM PUBLIC;
ALTER SCHEMA public OWNER TO ${webhook.role};
CREATE SCHEMA IF NOT EXISTS ${gateway.schema} AUTHORIZATION ${gateway.role};
ALTER SCHEMA ${gateway.schema} OWNER TO ${gateway.role};
DO $$ DECLARE r record; BEGIN
  FOR r IN
    SELECT n.nspname, c.relname, ${owner} AS owner,
      CASE c.relkind WHEN 'S' THEN 'SEQUENCE' WHEN 'v' THEN 'VIEW' WHEN 'm' THEN 'MATERIALIZED VIEW' ELSE 'TABLE' END AS kind
    FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
    WHERE n.nspname IN ('${webhook.schema}', '${gateway.schema}') AND c.relkind IN ('r', 'p', 'S', 'v', 'm')
      AND pg_get_userbyid(c.relowner) <> ${owner}
      -- A sequence of a serial or identity column follows its table.
      AND NOT EXISTS (SELECT FROM pg_depend d WHERE d.classid = 'pg_class'::regclass AND d.objid = c.oid AND d.deptype IN ('a', 'i'))
  LOOP
    EXECUTE format('ALTER %s %I.%I OWNER TO %I', r.kind, r.nspname, r.relname, r.owner);
  END LOOP;
END $$;
`;
}
