// One child logger per HTTP request (req.log), with a request id that is echoed in `x-request-id`.
// Headers go through the logger's redaction, so an Authorization header is never written.
import { randomUUID } from 'node:crypto';
import { pinoHttp, type HttpLogger } from 'pino-http';
import type { Logger } from 'pino';

const requestIdPattern = /^[A-Za-z0-9._-]{1,64}$/;

export function createRequestLogging(logger: Logger): HttpLogger {
  return pinoHttp({
    logger,
    genReqId(req, res) {
      const given = req.headers['x-request-id'];
      const id = typeof given === 'string' && requestIdPattern.test(given) ? given : randomUUID();
      res.setHeader('x-request-id', id);
      return id;
    },
    customLogLevel(_req, res, error) {
      if (error || res.statusCode >= 500) return 'error';
      return res.statusCode >= 400 ? 'info' : 'debug';
    },
  });
}
