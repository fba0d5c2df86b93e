// The one variable the tests' PostgreSQL reads: TEST_DATABASE_URL names a database to use instead of
// starting a throwaway cluster (a CI with PostgreSQL of its own, say).

/** The database the tests are told to use, or undefined to start a cluster of their own. */
export const givenTestDatabaseUrl = (environment: Readonly<Record<string, string | undefined>> = process.env): string | undefined =>
  environment.TEST_DATABASE_URL || undefined;
