import * as grpc from '@grpc/grpc-js';
import { afterEach, describe, expect, it } from 'vitest';
import { loadRegistryProto, loadToolsProto, type ToolServiceHandlers } from './index.ts';

let server: grpc.Server | undefined;
afterEach(() => {
  server?.forceShutdown();
  server = undefined;
});

async function listen(handlers: ToolServiceHandlers): Promise<string> {
  const tools = loadToolsProto();
  server = new grpc.Server();
  server.addService(tools.ToolService.service, handlers);
  const port = await new Promise<number>((resolve, reject) => {
    server?.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (error, bound) => {
      if (error) reject(error);
      else resolve(bound);
    });
  });
  return `127.0.0.1:${port}`;
}

describe('gRPC contracts', () => {
  it('define the tool service and the registry with their methods', () => {
    expect(Object.keys(loadToolsProto().ToolService.service)).toEqual(['ListTools', 'CallTool']);
    expect(Object.keys(loadRegistryProto().ToolRegistry.service)).toEqual(['Register', 'Heartbeat', 'Deregister']);
  });

  it('carry JSON arguments and results and the bearer metadata over a real loopback call', async () => {
    let seenAuthorization: unknown;
    const address = await listen({
      ListTools: (_call, callback) => {
        callback(null, { tools: [] });
      },
      CallTool: (call, callback) => {
        seenAuthorization = call.metadata.get('authorization')[0];
        callback(null, { resultJson: call.request.argumentsJson, isError: false, text: call.request.name });
      },
    });
    const client = new (loadToolsProto().ToolService)(address, grpc.credentials.createInsecure());
    const metadata = new grpc.Metadata();
    metadata.set('authorization', 'Bearer delegated-token');
    // 2^53 + 1 survives because arguments travel as a JSON string, not as protobuf doubles.
    const argumentsJson = '{"deviceId":9007199254740993}';
    const response = await new Promise<{ resultJson: string; isError: boolean; text: string }>((resolve, reject) => {
      client.CallTool({ name: 'echo', argumentsJson }, metadata, (error, reply) => {
        if (error || !reply) reject(error ?? new Error('no reply'));
        else resolve(reply);
      });
    });
    client.close();
    expect(seenAuthorization).toBe('Bearer delegated-token');
    expect(response.isError).toBe(false);
    expect(response.resultJson).toBe(argumentsJson);
    expect(response.text).toBe('echo');
  });
});
