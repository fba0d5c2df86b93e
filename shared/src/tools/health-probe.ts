// The standard gRPC health check (grpc.health.v1.Health/Check) as an operator's probe asks it,
// like grpc_health_probe, but over the service's own transport: TLS with its CA and certificate
// when it has them. A container's health check runs it against the service's callback address.
import * as grpc from '@grpc/grpc-js';
import { loadSync } from '@grpc/proto-loader';
import { protoPath as healthProtoPath } from 'grpc-health-check';
import { channelCredentialsOf, createGrpcTls } from '../grpc/tls.ts';
import type { PlatformMcpSettings } from '../settings/platform-settings.ts';
import { registrationHealthName } from './tool-server.ts';

interface HealthClient extends grpc.Client {
  Check(
    request: { service: string },
    options: grpc.CallOptions,
    callback: (error: grpc.ServiceError | null, value?: { status: string }) => void,
  ): grpc.ClientUnaryCall;
}

/** SERVING, NOT_SERVING, or the name of the gRPC status the check failed with (UNAVAILABLE, NOT_FOUND, DEADLINE_EXCEEDED...). */
export async function checkHealth(address: string, service: string, credentials: grpc.ChannelCredentials, timeoutMs = 3_000): Promise<string> {
  const definition = loadSync(healthProtoPath, { keepCase: true, enums: String });
  const Health = (grpc.loadPackageDefinition(definition) as unknown as { grpc: { health: { v1: { Health: grpc.ServiceClientConstructor } } } }).grpc.health.v1
    .Health;
  const client = new Health(address, credentials) as unknown as HealthClient;
  try {
    return await new Promise<string>((resolve) => {
      client.Check({ service }, { deadline: Date.now() + timeoutMs }, (error, value) => {
        resolve(error ? grpc.status[error.code] : String(value?.status));
      });
    });
  } finally {
    client.close();
  }
}

/** Whether the gateway holds the registration of the tool service these settings describe, asked at its callback address. */
export async function probeRegistration(settings: Pick<PlatformMcpSettings, 'callbackAddress' | 'grpcTls'>, timeoutMs?: number): Promise<string> {
  const tls = settings.grpcTls && createGrpcTls(settings.grpcTls);
  await tls?.ready();
  return checkHealth(settings.callbackAddress, registrationHealthName, channelCredentialsOf(tls), timeoutMs);
}
