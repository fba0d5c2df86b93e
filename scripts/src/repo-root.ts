// The repository's root folder, for the scripts that run its workspaces' files or read its own.
import { resolve } from 'node:path';

export const repoRoot = resolve(import.meta.dirname, '../..');
