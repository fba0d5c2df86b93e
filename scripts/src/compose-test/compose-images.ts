// The images the compose test runs, built without an image registry: a Debian base from
// debootstrap, a Node 24 runtime on it (the repository's own Node binary), PostgreSQL from Debian's
// package, and the project's image from the shipped Dockerfile on that runtime, its production
// node_modules installed on the host (the npm registry is reachable here, not from a container).
// The base images are kept as tar files in a cache folder, so a second run (a later CI step) loads
// them instead of building them again.
import { cpSync, existsSync, mkdirSync, openSync, readSync, closeSync, realpathSync, rmSync, writeFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { run } from './container-engine.ts';

export interface BuiltImages {
  readonly node: string;
  readonly postgres: string;
  readonly stack: string;
  /** Every image this run put in the daemon, for the teardown. */
  readonly made: readonly string[];
}

const here = import.meta.dirname;
const suite = 'bookworm';
const baseTag = `compose-test/debian:${suite}`;
const nodeTag = 'compose-test/node:24';
const postgresTag = 'compose-test/postgres:debian';

const imageExists = async (tag: string) => (await run('docker', ['image', 'inspect', tag], { allowFailure: true })).code === 0;

/** The real Node binary of the repository's `node` dev dependency (an ELF file, not a wrapper script). */
function repositoryNodeBinary(repoRoot: string): string {
  const binary = realpathSync(join(repoRoot, 'node_modules/node/bin/node'));
  const header = Buffer.alloc(4);
  const fd = openSync(binary, 'r');
  readSync(fd, header, 0, 4, 0);
  closeSync(fd);
  if (!header.equals(Buffer.from([0x7f, 0x45, 0x4c, 0x46]))) throw new Error(`${binary} is not a Node binary: run npm ci first`);
  return binary;
}

/**
 * An image from the daemon, else from the cache folder, else built by `build` and saved there.
 * Returns whether this run put it in the daemon.
 */
async function cachedImage(tag: string, cacheFile: string, build: () => Promise<void>, say: (line: string) => void): Promise<boolean> {
  if (await imageExists(tag)) return false;
  if (existsSync(cacheFile)) {
    await run('docker', ['load', '--input', cacheFile]);
    say(`loaded ${tag} from ${cacheFile}`);
    return true;
  }
  await build();
  await run('docker', ['save', '--output', cacheFile, tag]);
  say(`built ${tag} (kept in ${cacheFile})`);
  return true;
}

export interface ImageOptions {
  readonly repoRoot: string;
  readonly cacheDir: string;
  /** A folder of this run's own for build contexts; removed by the caller. */
  readonly workDir: string;
  readonly stackTag: string;
  readonly say: (line: string) => void;
}

export async function buildImages(options: ImageOptions): Promise<BuiltImages> {
  const { repoRoot, cacheDir, workDir, stackTag, say } = options;
  mkdirSync(cacheDir, { recursive: true });
  const made: string[] = [];
  const note = (tag: string) => (putThere: boolean) => {
    if (putThere) made.push(tag);
  };
  // The project's build context (a copy of the repository and its production node_modules, from
  // the host's npm cache) is made while the base images build: neither waits on the other.
  const stackContext = join(workDir, 'stack-context');
  const preparing = prepareStackContext(repoRoot, stackContext);
  preparing.catch(() => undefined); // awaited below; a failure is reported there, not as unhandled

  note(baseTag)(
    await cachedImage(
      baseTag,
      join(cacheDir, `debian-${suite}.tar`),
      async () => {
        const rootfs = join(workDir, 'rootfs');
        await run('debootstrap', ['--variant=minbase', suite, rootfs, 'http://deb.debian.org/debian']);
        const tar = await run('sh', ['-c', `tar -C '${rootfs}' -c . | docker import - ${baseTag}`]);
        if (!tar.stdout.trim()) throw new Error('docker import gave no image');
        rmSync(rootfs, { recursive: true, force: true });
      },
      say,
    ),
  );

  const contextOf = (name: string, files: readonly (readonly [from: string, to: string])[]) => {
    const context = join(workDir, name);
    mkdirSync(context, { recursive: true });
    for (const [from, to] of files) cpSync(from, join(context, to));
    return context;
  };

  // Both on the Debian base, built side by side.
  const [nodePutThere, postgresPutThere] = await Promise.all([
    cachedImage(
      nodeTag,
      join(cacheDir, 'node-24.tar'),
      async () => {
        const context = contextOf('node-context', [
          [join(here, 'node-runtime.Dockerfile'), 'Dockerfile'],
          [repositoryNodeBinary(repoRoot), 'node'],
        ]);
        await run('docker', ['build', '--quiet', '--build-arg', `BASE_IMAGE=${baseTag}`, '--tag', nodeTag, context]);
      },
      say,
    ),
    cachedImage(
      postgresTag,
      join(cacheDir, 'postgres-debian.tar'),
      async () => {
        const context = contextOf('postgres-context', [
          [join(here, 'postgres.Dockerfile'), 'Dockerfile'],
          [join(here, 'postgres-entrypoint.sh'), 'postgres-entrypoint.sh'],
        ]);
        await run('docker', ['build', '--quiet', '--build-arg', `BASE_IMAGE=${baseTag}`, '--tag', postgresTag, context]);
      },
      say,
    ),
  ]);
  note(nodeTag)(nodePutThere);
  note(postgresTag)(postgresPutThere);

  await preparing;
  await run('docker', [
    'build',
    '--quiet',
    '--build-arg',
    `NODE_IMAGE=${nodeTag}`,
    '--build-arg',
    'INSTALL_DEPENDENCIES=false',
    '--tag',
    stackTag,
    stackContext,
  ]);
  made.push(stackTag);
  say(`built ${stackTag} from the Dockerfile (NODE_IMAGE=${nodeTag}, INSTALL_DEPENDENCIES=false)`);
  return { node: nodeTag, postgres: postgresTag, stack: stackTag, made };
}

/**
 * The build context of the project's image from the shipped Dockerfile: the repository's files
 * (tracked, or new and not ignored) and the production node_modules installed beside them on the host.
 */
async function prepareStackContext(repoRoot: string, context: string): Promise<void> {
  const listed = await run('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], { cwd: repoRoot });
  for (const file of listed.stdout.split('\0').filter(Boolean)) {
    if (existsSync(join(repoRoot, file))) cpSync(join(repoRoot, file), join(context, file), { recursive: true, verbatimSymlinks: true });
  }
  // What npm ci --omit=dev installs in the image, installed here from the host's npm cache or registry.
  await run('npm', ['ci', '--omit=dev', '--ignore-scripts', '--no-audit', '--no-fund', '--prefer-offline'], { cwd: context });
  // The shipped .dockerignore keeps node_modules out: here they are the point.
  const ignored = readFileSync(join(context, '.dockerignore'), 'utf8');
  writeFileSync(
    join(context, '.dockerignore'),
    ignored
      .split('\n')
      .filter((line) => line !== '**/node_modules')
      .join('\n'),
  );
}
