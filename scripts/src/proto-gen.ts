// Regenerates the TypeScript types of proto/ (proto-loader-gen-types); with --check, fails when the
// checked-in types differ from what the .proto files produce.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { generatorArgs, protoFiles, protoRoot } from '@platform/proto/proto-files';
import { repoRoot } from './repo-root.ts';

const generatedDir = join(protoRoot, 'src/generated');
const check = process.argv.includes('--check');

function generate(outDir: string): void {
  rmSync(outDir, { recursive: true, force: true });
  execFileSync(
    join(repoRoot, 'node_modules/.bin/proto-loader-gen-types'),
    // Relative include path and cwd: the generator writes each file's path into a header comment,
    // which must not depend on where the repository is checked out.
    [...generatorArgs, '-I', '.', '-O', outDir, ...protoFiles],
    { stdio: 'inherit', cwd: protoRoot },
  );
}

function listFiles(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((name) => statSync(join(dir, name)).isFile())
    .sort();
}

if (!check) {
  generate(generatedDir);
  console.log(`generated ${relative(repoRoot, generatedDir)}`);
} else {
  const scratch = mkdtempSync(join(tmpdir(), 'proto-check-'));
  try {
    generate(scratch);
    const expected = listFiles(scratch);
    const actual = listFiles(generatedDir);
    const stale = [
      ...expected.filter((f) => !actual.includes(f) || readFileSync(join(scratch, f), 'utf8') !== readFileSync(join(generatedDir, f), 'utf8')),
      ...actual.filter((f) => !expected.includes(f)),
    ];
    if (stale.length > 0) {
      console.error(`proto types are out of date (${stale.join(', ')}): run npm run proto:gen and commit the result`);
      process.exit(1);
    }
    console.log('proto types are in sync with the .proto files');
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}
