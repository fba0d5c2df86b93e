// Loads ./.env (where npm runs the command: the repository) into the environment when there is one,
// with Node's own parser; what the environment sets wins over it. npm start, start:pg, the demo and
// npm run token import this module first, so it runs before any other module reads a variable. Not
// `node --env-file-if-exists=.env`: Node 24 then says ".env not found. Continuing without it." on
// every run without one, a line that is no failure.
try {
  process.loadEnvFile('.env');
} catch (error) {
  const code = (error as NodeJS.ErrnoException).code;
  if (code !== 'ENOENT') {
    process.stderr.write(`.env cannot be read (${code ?? (error as Error).message}); fix or remove it\n`);
    process.exit(2);
  }
}
