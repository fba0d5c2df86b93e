// Preloaded (`node --import`) into the conformance suite, which has no option for a bearer token:
// a global undici dispatcher adds `Authorization: Bearer $MCP_BEARER_TOKEN` to every request to
// $MCP_BEARER_ORIGIN (Node's fetch and userland undici share the global dispatcher slot). An entry
// point of its own (the suite's process), it reads its two variables once, here.
import http from 'node:http';
import { Agent, setGlobalDispatcher, type Dispatcher } from 'undici';

const { MCP_BEARER_TOKEN: token, MCP_BEARER_ORIGIN: origin } = process.env;
const onlyOrigin = origin ? new URL(origin).origin : undefined;

type Headers = Dispatcher.DispatchOptions['headers'];

function withAuthorization(headers: Headers, value: string): Headers {
  if (headers == null) return { authorization: value };
  if (Array.isArray(headers)) {
    const names = headers.filter((_, index) => index % 2 === 0).map((name) => name.toLowerCase());
    return names.includes('authorization') ? headers : [...headers, 'authorization', value];
  }
  if (typeof (headers as Iterable<unknown>)[Symbol.iterator] === 'function') {
    return withAuthorization([...(headers as Iterable<[string, string]>)].flat(), value);
  }
  const record = headers as Record<string, string | string[] | undefined>;
  return Object.keys(record).some((name) => name.toLowerCase() === 'authorization') ? record : { ...record, authorization: value };
}

if (token) {
  const value = `Bearer ${token}`;
  setGlobalDispatcher(
    new Agent().compose((dispatch) => (options, handler) => {
      const origin = options.origin == null ? undefined : new URL(String(options.origin)).origin;
      const send = onlyOrigin === undefined || origin === onlyOrigin ? { ...options, headers: withAuthorization(options.headers, value) } : options;
      return dispatch(send, handler);
    }),
  );
}

// Some scenarios send their requests with node:http itself (to send headers fetch would refuse):
// the same header on those, to the same origin only.
if (token && onlyOrigin) {
  const target = new URL(onlyOrigin);
  const request = http.request.bind(http);
  const withToken = (options: http.RequestOptions): http.RequestOptions => {
    const sameOrigin = options.hostname === target.hostname && String(options.port) === target.port;
    const given: unknown = options.headers;
    if (!sameOrigin || Array.isArray(given)) return options;
    const headers = { ...(given as http.OutgoingHttpHeaders | undefined) };
    if (!Object.keys(headers).some((name) => name.toLowerCase() === 'authorization')) headers.authorization = `Bearer ${token}`;
    return { ...options, headers };
  };
  const send = request as (...args: unknown[]) => http.ClientRequest;
  const patched = (options: http.RequestOptions | string | URL, ...rest: unknown[]) =>
    typeof options === 'object' && !(options instanceof URL) ? send(withToken(options), ...rest) : send(options, ...rest);
  http.request = patched;
}
