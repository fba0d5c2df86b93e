// `npm start`: the whole stack on this machine (the embedded topology: one webhook-api with its
// deliverer on a SQLite file under ./data), each service in its own process, started in dependency
// order and each ready before the next; then what a new user needs to try it. Ctrl-C stops the
// services in the reverse order. `npm run start:pg` runs the scaled topology through the same code.
import '../dot-env.ts'; // first: .env is in process.env before any module reads it
import { devSecretsFile, loadDevSecrets, secretNamesOf } from '@platform/devtools/dev-secrets';
import { defaultSeedPath } from './banner.ts';
import { runStackFromCommandLine } from './command.ts';
import { serviceSecretNames, type Environment } from './processes.ts';
import { repoRoot } from '../repo-root.ts';

const env: Environment = process.env;
const seedPath = env.PLATFORM_SEED ?? defaultSeedPath;
const secretsFile = devSecretsFile(repoRoot);
const secrets = loadDevSecrets([...secretNamesOf(seedPath), ...serviceSecretNames], secretsFile, env);

await runStackFromCommandLine({ label: 'npm start', topology: 'embedded', env, secrets, seedPath, secretsFile });
