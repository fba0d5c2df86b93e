// Vitest global setup of the postgres project (vitest.config.ts): one PostgreSQL cluster for the
// test files that need one, its URL provided to them. Vitest runs it only when one of them runs.
import type { TestProject } from 'vitest/node';
import { startPostgresCluster } from './postgres-cluster.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    postgresUrl: string;
  }
}

export default async function setup(project: TestProject): Promise<() => void> {
  const cluster = await startPostgresCluster();
  project.provide('postgresUrl', cluster.url);
  return () => {
    cluster.stop();
  };
}
