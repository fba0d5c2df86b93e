// Requests Node's HTTP parser refuses before Express sees them (a malformed request line, headers
// too large) get the API's error body too, not Node's bare 400 or 431.
import type { Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebhookApiError } from './errors.ts';

const reasons: Record<number, string> = { 400: 'Bad Request', 431: 'Request Header Fields Too Large' };

export function answerClientErrors(server: Server): void {
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Duplex) => {
    // A client that went away, or an answer already begun: nothing more to say.
    if (error.code === 'ECONNRESET' || !socket.writable) {
      socket.destroy();
      return;
    }
    const apiError =
      error.code === 'HPE_HEADER_OVERFLOW'
        ? new WebhookApiError('HEADERS_TOO_LARGE')
        : new WebhookApiError('VALIDATION_FAILED', 'request: is not a well-formed HTTP request', { field: 'request' });
    const body = JSON.stringify(apiError.toBody());
    socket.end(
      `HTTP/1.1 ${apiError.status} ${reasons[apiError.status] ?? 'Error'}\r\n` +
        `content-type: application/json; charset=utf-8\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
    );
  });
}
