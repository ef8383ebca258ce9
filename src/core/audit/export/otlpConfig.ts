/**
 * Where the audit export sends the decisions: an OpenTelemetry collector's OTLP/HTTP receiver. The same shape comes
 * from the machine-scoped setting `toolgate.audit.otlp` and from the managed settings file's `audit.otlp` entry (a
 * managed one wins, see auditExport.ts). Also the headers file's format: one `Name: value` a line.
 */
import { isAbsolute } from 'node:path';
import * as z from '../../../zod';

/** How the records are encoded on the wire. */
export const OtlpProtocol = z.enum(['http/protobuf', 'http/json']);
export type OtlpProtocol = z.infer<typeof OtlpProtocol>;

export const OtlpExportConfig = z.strictObject({
  /** The collector's base URL (`http://127.0.0.1:4318`); logs go to `<endpoint>/v1/logs` unless it ends so already. */
  endpoint: z.url({ protocol: /^https?$/, error: 'endpoint must be an http(s) URL' }),
  protocol: z._default(OtlpProtocol, 'http/protobuf'),
  /** An absolute path to a file of `Name: value` lines: the headers sent to the collector (a token, say). */
  headersFile: z.optional(z.string().check(z.refine((file) => isAbsolute(file), { error: 'headersFile must be an absolute path' }))),
});
export type OtlpExportConfig = z.infer<typeof OtlpExportConfig>;

/** Who gave the configuration: the managed settings file (the person cannot turn it off) or the person's setting. */
export const ExportOrigin = z.enum(['managed', 'setting']);
export type ExportOrigin = z.infer<typeof ExportOrigin>;

/** A configuration read from `unknown`: absent (`undefined` or `null`) is off; a bad one is off too, with its problem. */
export function parseExportConfig(raw: unknown): { config: OtlpExportConfig | undefined; problem?: string } {
  if (raw === undefined || raw === null) {
    return { config: undefined };
  }
  const parsed = OtlpExportConfig.safeParse(raw);
  if (parsed.success) {
    return { config: parsed.data };
  }
  const issue = parsed.error.issues[0];
  const where = issue !== undefined && issue.path.length > 0 ? `${issue.path.join('.')}: ` : '';
  return { config: undefined, problem: `${where}${issue?.message ?? 'invalid value'}` };
}

/** The managed settings file's `audit.otlp` (none without a file): its config, or why it cannot be used. */
export function managedExportConfig(policy: { file: string; audit: { otlp?: unknown } } | undefined): { config: OtlpExportConfig | undefined; problem?: string } {
  const { config, problem } = parseExportConfig(policy?.audit.otlp);
  return problem === undefined ? { config } : { config, problem: `the managed settings file ${policy?.file ?? ''} names an audit export Toolgate cannot use (audit.otlp.${problem}): nothing is exported until it is fixed` };
}

/** The URL the logs are posted to. */
export function logsUrl(endpoint: string): string {
  const url = new URL(endpoint);
  const pathname = url.pathname.replace(/\/+$/, '');
  url.pathname = pathname.endsWith('/v1/logs') ? pathname : `${pathname}/v1/logs`;
  return url.toString();
}

/** An HTTP header name (RFC 9110 token) and a value without line breaks or other control characters. */
export const headerName = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
// eslint-disable-next-line no-control-regex -- the point is to refuse control characters
const badValue = /[\u0000-\u0008\u000a-\u001f\u007f]/;

export interface ParsedHeaders {
  headers: Record<string, string>;
  /** One per line that is not a header, by line number: never the line itself (it may hold a token). */
  problems: string[];
}

/** A headers file: `Name: value` lines; blank lines and lines starting with `#` are skipped. */
export function parseHeadersFile(text: string): ParsedHeaders {
  const headers: Record<string, string> = {};
  const problems: string[] = [];
  text.split(/\r?\n/).forEach((line, index) => {
    const trimmed = line.trim();
    if (trimmed === '' || trimmed.startsWith('#')) {
      return;
    }
    const colon = trimmed.indexOf(':');
    const name = colon > 0 ? trimmed.slice(0, colon).trim() : '';
    const value = colon > 0 ? trimmed.slice(colon + 1).trim() : '';
    if (!headerName.test(name)) {
      problems.push(`line ${index + 1} is not \`Name: value\``);
    } else if (value === '' || badValue.test(value)) {
      problems.push(`line ${index + 1} (${name}) has an empty or invalid value`);
    } else {
      headers[name] = value;
    }
  });
  return { headers, problems };
}
