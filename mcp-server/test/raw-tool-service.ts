// A ToolService without the SDK, for the gateway's tests of hostile or broken services: it answers
// whatever the test tells it to. Test code only.
import * as grpc from '@grpc/grpc-js';
import { loadToolsProto, type CallToolEvent, type CallToolRequest__Output, type CallToolResponse, type Tool } from '@platform/proto';
import { bindOnLoopback } from '@platform/devtools/grpc-loopback';
import { appToken, devSecrets } from '@platform/dev-platform/testing';
import { startedForTests, until } from '@platform/tool-sdk/testing';
import type { Stack } from './harness.ts';
import { bearer, registryClient } from './registry-harness.ts';

export interface RawToolService {
  /** host:port on loopback. */
  readonly address: string;
  /** Every CallTool it was sent, with the `authorization` metadata it carried. */
  readonly calls: { readonly request: CallToolRequest__Output; readonly authorization: string }[];
  close(): void;
}

export interface RawToolServiceOptions {
  readonly tools: readonly Tool[];
  readonly answer?: (request: CallToolRequest__Output) => CallToolResponse | { readonly code: grpc.status; readonly details?: string };
  readonly stream?: (request: CallToolRequest__Output) => {
    readonly events: Iterable<CallToolEvent>;
    readonly status?: { code: grpc.status; details: string };
  };
}

/**
 * A ToolService without the SDK, that answers whatever it is told: `tools` to ListTools, and
 * `answer`'s response (or status) to CallTool; with `stream`, CallToolStream too, writing the events
 * it gives (then the status it gives, if any). A hostile or broken service, for the gateway's tests.
 */
export async function startRawToolService(options: RawToolServiceOptions): Promise<RawToolService> {
  const calls: { request: CallToolRequest__Output; authorization: string }[] = [];
  const server = new grpc.Server({ 'grpc.max_send_message_length': 64 * 1024 * 1024 });
  server.addService(loadToolsProto().ToolService.service, {
    ListTools: (_call: unknown, callback: grpc.sendUnaryData<{ tools: readonly Tool[] }>) => {
      callback(null, { tools: options.tools });
    },
    CallTool: (call: grpc.ServerUnaryCall<CallToolRequest__Output, CallToolResponse>, callback: grpc.sendUnaryData<CallToolResponse>) => {
      calls.push({ request: call.request, authorization: String(call.metadata.get('authorization')[0] ?? '') });
      const answer = options.answer?.(call.request) ?? { code: grpc.status.UNIMPLEMENTED };
      if ('code' in answer) callback({ code: answer.code, details: answer.details ?? '' });
      else callback(null, answer);
    },
    ...(options.stream && {
      CallToolStream: (call: grpc.ServerWritableStream<CallToolRequest__Output, CallToolEvent>) => {
        calls.push({ request: call.request, authorization: String(call.metadata.get('authorization')[0] ?? '') });
        const { events, status } = options.stream?.(call.request) ?? { events: [] };
        for (const event of events) call.write(event);
        if (status) call.emit('error', status);
        else call.end();
      },
    }),
  });
  const address = await bindOnLoopback(server, grpc.ServerCredentials.createInsecure());
  return {
    address,
    calls,
    close: () => {
      server.forceShutdown();
    },
  };
}

/**
 * A raw tool service registered by hand at the stack's gateway as fleet-insights, for the block's
 * tests: ready once the catalog lists its tool `listed`, deregistered after them.
 */
export function registeredRawServiceForTests(stack: () => Stack, serviceName: string, listed: string, options: RawToolServiceOptions): void {
  startedForTests(async () => {
    const service = await startRawToolService(options);
    const token = async () => bearer(await appToken(stack().issuer, 'fleet-insights', devSecrets.FLEET_INSIGHTS_CLIENT_SECRET));
    const registrar = registryClient(stack().registryAddress);
    const registered = await registrar.register({ serviceName, callbackAddress: service.address, ttlSeconds: 120 }, await token());
    if (!registered.ok) throw new Error(registered.details);
    await until(() => stack().gateway.registry.catalog().byName(`fleet-insights__${listed}`) !== undefined, `the service ${serviceName} registered`);
    return {
      async close() {
        await registrar.deregister(registered.value.registrationId, await token());
        registrar.close();
        service.close();
      },
    };
  });
}
