// Where the .proto files are and the options they are loaded with; the runtime loader and the type
// generator share these so the generated types describe exactly what the loader produces.
import { join, resolve } from 'node:path';
import type { Options } from '@grpc/proto-loader';

export const protoRoot = resolve(import.meta.dirname, '..');

export const protoFiles = ['platform/tools/v1/tool_service.proto', 'platform/registry/v1/tool_registry.proto'] as const;

export const loaderOptions = {
  keepCase: false,
  longs: String,
  enums: String,
  defaults: true,
  oneofs: true,
  includeDirs: [protoRoot],
} satisfies Options;

export const generatorArgs = [
  '--grpcLib=@grpc/grpc-js',
  '--longs=String',
  '--enums=String',
  '--defaults',
  '--oneofs',
  '--includeComments',
  '--importFileExtension=.ts',
  '--targetFileExtension=.ts',
];

export function protoPath(file: (typeof protoFiles)[number]): string {
  return join(protoRoot, file);
}
