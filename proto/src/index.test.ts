import * as grpc from '@grpc/grpc-js';
import { afterEach, describe, expect, it } from 'vitest';
import { loadRegistryProto, loadToolsProto, type CallToolEvent__Output, type ToolServiceHandlers } from './index.ts';

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
    expect(Object.keys(loadToolsProto().ToolService.service)).toEqual(['ListTools', 'CallToolStream', 'CallToolAsTask', 'CallTool']);
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
      CallToolStream: (call) => {
        call.end();
      },
      CallToolAsTask: (call) => {
        call.end();
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

  it('carry a call as a stream of events: progress and log messages, then a result of typed content blocks with bytes as they are', async () => {
    const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x00, 0xff]);
    const address = await listen({
      ListTools: (_call, callback) => {
        callback(null, { tools: [] });
      },
      CallTool: (_call, callback) => {
        callback({ code: grpc.status.UNIMPLEMENTED });
      },
      CallToolStream: (call) => {
        expect(call.request.client).toMatchObject({ progress: true, logLevel: 'LOG_LEVEL_WARNING', elicitationForm: true });
        expect(call.request.inputResponsesJson).toEqual({ confirm: '{"action":"accept"}' });
        call.write({ progress: { progress: 1, total: 2, message: 'half' } });
        call.write({ log: { level: 'LOG_LEVEL_ERROR', logger: 'probe', dataJson: '{"n":1}' } });
        call.write({
          result: {
            content: [{ text: 'done' }, { image: { data: png, mimeType: 'image/png' }, annotations: { audience: ['user'], priority: 0.5 } }],
            structuredContentJson: '{"n":9007199254740993}',
          },
        });
        call.end();
      },
      CallToolAsTask: (call) => {
        call.end();
      },
    });
    const client = new (loadToolsProto().ToolService)(address, grpc.credentials.createInsecure());
    const events = await new Promise<CallToolEvent__Output[]>((resolve, reject) => {
      const seen: CallToolEvent__Output[] = [];
      const stream = client.CallToolStream({
        name: 'probe',
        argumentsJson: '{}',
        client: { progress: true, logLevel: 'LOG_LEVEL_WARNING', elicitationForm: true },
        inputResponsesJson: { confirm: '{"action":"accept"}' },
      });
      stream.on('data', (event: CallToolEvent__Output) => seen.push(event));
      stream.on('error', reject);
      stream.on('end', () => {
        resolve(seen);
      });
    });
    client.close();
    expect(events.map((event) => event.event)).toEqual(['progress', 'log', 'result']);
    expect(events[0]?.progress).toEqual({ progress: 1, total: 2, message: 'half', _total: 'total' });
    expect(events[1]?.log).toEqual({ level: 'LOG_LEVEL_ERROR', logger: 'probe', dataJson: '{"n":1}' });
    const [text, image] = events[2]?.result?.content ?? [];
    expect(text).toMatchObject({ block: 'text', text: 'done' });
    expect(image?.image?.data).toEqual(png);
    expect(image?.annotations).toMatchObject({ audience: ['user'], priority: 0.5 });
    expect(events[2]?.result?.structuredContentJson).toBe('{"n":9007199254740993}');
  });
});
