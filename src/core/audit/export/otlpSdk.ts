/**
 * The OpenTelemetry packages the audit export sends with, in one module so that they load together and only once an
 * export is configured: the extension bundles this module as its own file (dist/lazy/otlp.js, see esbuild.mjs),
 * imported with `import()` by auditExport.ts.
 */
export { SeverityNumber } from '@opentelemetry/api';
export { ExportResultCode } from '@opentelemetry/core';
export { OTLPLogExporter as OtlpJsonLogExporter } from '@opentelemetry/exporter-logs-otlp-http';
export { OTLPLogExporter as OtlpProtobufLogExporter } from '@opentelemetry/exporter-logs-otlp-proto';
export { resourceFromAttributes } from '@opentelemetry/resources';
export { BatchLogRecordProcessor, LoggerProvider } from '@opentelemetry/sdk-logs';
