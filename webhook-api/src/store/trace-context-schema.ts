// Schema version 2, the same in both dialects: a queued delivery keeps the trace context
// (`traceparent`) of the ingest that queued it, so each delivery attempt's span links back to it.
export const traceContextColumn = 'ALTER TABLE deliveries ADD COLUMN trace_context TEXT';
