import express, { type ErrorRequestHandler, type RequestHandler } from 'express';
import { listen } from '@platform/tool-sdk/testing';
import { describe, expect, it } from 'vitest';
import { chain } from './middleware-chain.ts';

/** An app with `handlers` chained in front of a route answering what ran, and an error edge answering the error's message. */
async function served(...handlers: RequestHandler[]) {
  const app = express();
  app.use((_req, res, next) => {
    res.locals.ran = [];
    next();
  });
  app.use(chain(...handlers));
  app.get('/x', (_req, res) => {
    res.json({ ran: res.locals.ran as string[] });
  });
  const edge: ErrorRequestHandler = (error: unknown, _req, res, _next) => {
    res.status(500).json({ error: error instanceof Error ? error.message : String(error), ran: res.locals.ran as string[] });
  };
  app.use(edge);
  const server = await listen(app);
  const get = async () => {
    const response = await fetch(`${server.url}/x`);
    return { status: response.status, body: await response.json() };
  };
  return { get, close: () => server.close() };
}

const step =
  (name: string): RequestHandler =>
  (_req, res, next) => {
    (res.locals.ran as string[]).push(name);
    next();
  };
const asyncStep =
  (name: string): RequestHandler =>
  async (_req, res, next) => {
    await Promise.resolve();
    (res.locals.ran as string[]).push(name);
    next();
  };

describe('chain', () => {
  it('runs its handlers in order, synchronous and asynchronous, then what follows it', async () => {
    const app = await served(step('a'), asyncStep('b'), step('c'), asyncStep('d'));
    try {
      expect(await app.get()).toEqual({ status: 200, body: { ran: ['a', 'b', 'c', 'd'] } });
    } finally {
      await app.close();
    }
  });

  it("moves on at next('route'), as a middleware layer of its own would", async () => {
    const skip: RequestHandler = (_req, _res, next) => {
      next('route');
    };
    const app = await served(step('a'), skip, step('c'));
    try {
      expect(await app.get()).toEqual({ status: 200, body: { ran: ['a', 'c'] } });
    } finally {
      await app.close();
    }
  });

  it('hands an error passed to next, thrown, or rejected to the error handling, running nothing after it', async () => {
    const passed: RequestHandler = (_req, _res, next) => {
      next(new Error('passed'));
    };
    const thrown: RequestHandler = () => {
      throw new Error('thrown');
    };
    const rejected: RequestHandler = async () => {
      await Promise.resolve();
      throw new Error('rejected');
    };
    for (const [failing, message] of [
      [passed, 'passed'],
      [thrown, 'thrown'],
      [rejected, 'rejected'],
    ] as const) {
      for (const before of [step('a'), asyncStep('a')]) {
        const app = await served(before, failing, step('never'));
        try {
          expect(await app.get()).toEqual({ status: 500, body: { error: message, ran: ['a'] } });
        } finally {
          await app.close();
        }
      }
    }
  });
});
