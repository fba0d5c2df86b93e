// GET a /metrics address as a scraper does, with node:http rather than fetch: fetch joins
// repeated header lines into one, and the tests of the metrics access rule send the Authorization
// line twice on purpose.
import { request } from 'node:http';

export interface ScrapeAnswer {
  readonly status: number;
  readonly headers: Record<string, unknown>;
  readonly body: string;
}

/** GET `url` with these Authorization header lines (node:http sends an array as several lines). */
export function scrape(url: string, authorization: readonly string[] = []): Promise<ScrapeAnswer> {
  return new Promise((resolve, reject) => {
    const req = request(url, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => {
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body });
      });
    });
    if (authorization.length > 0) req.setHeader('authorization', [...authorization]);
    req.on('error', reject);
    req.end();
  });
}
