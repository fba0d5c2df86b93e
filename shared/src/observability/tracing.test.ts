import type { ReadableSpan, SpanExporter } from '@opentelemetry/sdk-trace';
import { keptSpans } from '@platform/devtools/kept-spans';
import { afterEach, describe, expect, it } from 'vitest';
import { startTelemetry, type Telemetry } from './start-telemetry.ts';
import { loadTelemetrySettings } from './telemetry-settings.ts';
import { inSpan, isRecording, SpanStatusCode, tracer } from './tracing.ts';

/** An exporter that keeps what it is given, after its provider shut down too. */
const keepingExporter = () => keptSpans<ReadableSpan>();

const start = (exporter: SpanExporter) => startTelemetry(loadTelemetrySettings({}, 'svc'), { exporter, exportDelayMs: 10 });

let started: Telemetry | undefined;
afterEach(async () => {
  await started?.shutdown();
  started = undefined;
});

describe('inSpan without a tracer provider', () => {
  it('runs the work at once with a span that records nothing, and answers what it answered', async () => {
    let ran = false;
    const answer = inSpan('work', { attributes: { a: 1 } }, (span) => {
      ran = true;
      expect(span.isRecording()).toBe(false);
      return isRecording();
    });
    expect(ran).toBe(true);
    expect(await answer).toBe(false);
    expect(await inSpan('async work', {}, () => Promise.resolve('done'))).toBe('done');
  });

  it('rejects with what the work threw, at once or later', async () => {
    const thrown = new TypeError('at once');
    await expect(
      inSpan('work', {}, () => {
        throw thrown;
      }),
    ).rejects.toBe(thrown);
    await expect(inSpan('work', {}, () => Promise.reject(new RangeError('later')))).rejects.toThrow(RangeError);
  });
});

describe('inSpan with a tracer provider', () => {
  it('records each span with its attributes, and marks a failed one', async () => {
    const { exporter, spans } = keepingExporter();
    started = start(exporter);
    expect(await inSpan('work', { attributes: { a: 1 } }, () => isRecording())).toBe(true);
    await expect(
      inSpan('failing', {}, () => {
        throw new TypeError('no');
      }),
    ).rejects.toThrow(TypeError);
    await expect(inSpan('failing later', {}, () => Promise.reject(new RangeError('later')))).rejects.toThrow(RangeError);
    expect(await inSpan('later', {}, () => Promise.resolve('done'))).toBe('done');
    await started.shutdown();
    started = undefined;
    expect(spans.map((span) => [span.name, span.status.code])).toEqual([
      ['work', SpanStatusCode.UNSET],
      ['failing', SpanStatusCode.ERROR],
      ['failing later', SpanStatusCode.ERROR],
      ['later', SpanStatusCode.UNSET],
    ]);
    expect(spans[0]?.attributes).toMatchObject({ a: 1 });
    expect(spans[1]?.attributes).toMatchObject({ 'error.type': 'TypeError' });
    expect(spans[2]?.attributes).toMatchObject({ 'error.type': 'RangeError' });
    expect(spans[3]?.endTime).toBeDefined();
  });

  it('follows the provider registered now: spans go to a provider started after another was shut down, and to none after', async () => {
    const first = keepingExporter();
    started = start(first.exporter);
    await inSpan('to the first', {}, () => undefined);
    tracer().startSpan('also to the first').end();
    await started.shutdown();
    const second = keepingExporter();
    started = start(second.exporter);
    await inSpan('to the second', {}, () => undefined);
    tracer().startSpan('also to the second').end();
    await started.shutdown();
    started = undefined;
    expect(await inSpan('to none', {}, () => isRecording())).toBe(false);
    expect(first.spans.map((span) => span.name)).toEqual(['to the first', 'also to the first']);
    expect(second.spans.map((span) => span.name)).toEqual(['to the second', 'also to the second']);
  });
});
