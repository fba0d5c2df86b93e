// `node scripts/src/stack/certificates-main.ts --out <dir> --hosts a,b,c`: the development CA and the
// gateway's and tool service's certificates npm start issues, written into <dir> for the hosts
// given (besides 127.0.0.1, ::1 and localhost); kept when they are still good for those hosts. For
// a one-shot init container that gives a compose stack its certificates; never for production.
import { parseArgs } from 'node:util';
import { ensureDevCertificates } from '@platform/devtools/dev-certificates';

const usage = 'usage: node scripts/src/stack/certificates-main.ts --out <dir> [--hosts mcp-server,tool-service,...]';
let out: string | undefined;
let hosts: string[];
try {
  const { values } = parseArgs({ options: { out: { type: 'string' }, hosts: { type: 'string', default: '' } } });
  out = values.out;
  hosts = values.hosts
    .split(',')
    .map((host) => host.trim())
    .filter(Boolean);
} catch (error) {
  console.error(`certificates: ${(error as Error).message}\n${usage}`);
  process.exit(2);
}
if (!out) {
  console.error(usage);
  process.exit(2);
}
const bad = hosts.find((host) => !/^(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.:-]+)$/.test(host));
if (bad !== undefined) {
  console.error(`certificates: --hosts ${JSON.stringify(bad)} is not a host name or IP address\n${usage}`);
  process.exit(2);
}
try {
  const { files, issuedBecause } = await ensureDevCertificates(out, hosts);
  console.log(
    issuedBecause === undefined
      ? `certificates in ${out} are still good for ${hosts.join(', ') || 'loopback'}; kept`
      : `issued a development CA and certificates in ${out} (${issuedBecause}): ${Object.values(files).join(', ')}`,
  );
} catch (error) {
  console.error(`certificates: cannot write ${out}: ${(error as Error).message}`);
  process.exit(1);
}
