// What an operator's tools ask a gRPC service, as tests ask it: the standard health check (as
// grpc_health_probe does) and server reflection's service list (as `grpcurl list` does).
import { createRequire } from 'node:module';
import * as grpc from '@grpc/grpc-js';
import { loadSync } from '@grpc/proto-loader';
import { protoPath as healthProtoPath } from 'grpc-health-check';

type Constructor = grpc.ServiceClientConstructor;

/** A client of the standard gRPC health service, as `healthClient` makes it. */
export interface HealthClient {
  /** The serving status of `service`. */
  Check(request: { service: string }, callback: (error: grpc.ServiceError | null, value?: { status: string }) => void): void;
  /** The serving status of `service`, and each change of it. */
  Watch(request: { service: string }): grpc.ClientReadableStream<{ status: string }>;
  /** Closes the channel. */
  close(): void;
}

interface ReflectionClient {
  ServerReflectionInfo(): grpc.ClientDuplexStream<object, { list_services_response?: { service: { name: string }[] } }>;
  close(): void;
}

/** A client of grpc.health.v1.Health at `address`. */
export function healthClient(address: string): HealthClient {
  const definition = loadSync(healthProtoPath, { keepCase: true, enums: String });
  const Health = (grpc.loadPackageDefinition(definition) as unknown as { grpc: { health: { v1: { Health: Constructor } } } }).grpc.health.v1.Health;
  return new Health(address, grpc.credentials.createInsecure()) as unknown as HealthClient;
}

/** The serving status of `service` ('' for the whole server): SERVING, NOT_SERVING, or the error's status name. */
export async function healthStatus(address: string, service = ''): Promise<string> {
  const client = healthClient(address);
  try {
    return await new Promise<string>((resolve) => {
      client.Check({ service }, (error, value) => {
        resolve(error ? grpc.status[error.code] : String(value?.status));
      });
    });
  } finally {
    client.close();
  }
}

/** The services the server lists through reflection (grpc.reflection.v1), as `grpcurl list` prints them. */
export async function reflectedServices(address: string): Promise<string[]> {
  const packageRoot = createRequire(import.meta.url)
    .resolve('@grpc/reflection')
    .replace(/build[/\\]src[/\\]index\.js$/, '');
  const definition = loadSync(`${packageRoot}build/proto/grpc/reflection/v1/reflection.proto`, { keepCase: true });
  const Reflection = (grpc.loadPackageDefinition(definition) as unknown as { grpc: { reflection: { v1: { ServerReflection: Constructor } } } }).grpc.reflection
    .v1.ServerReflection;
  const client = new Reflection(address, grpc.credentials.createInsecure()) as unknown as ReflectionClient;
  try {
    const stream = client.ServerReflectionInfo();
    const answer = new Promise<string[]>((resolve, reject) => {
      stream.once('data', (message: { list_services_response?: { service: { name: string }[] } }) => {
        resolve((message.list_services_response?.service ?? []).map((service) => service.name));
      });
      stream.once('error', reject);
    });
    stream.write({ list_services: '' });
    const services = await answer;
    stream.end();
    return services.sort();
  } finally {
    client.close();
  }
}
