/**
 * What the status bar says about the audit export: nothing while it is off or all is sent; the records waiting while
 * the collector does not take them, and how many the full spool dropped.
 */
import type { ExportStatus } from './auditExport';

export interface ExportStatusItem {
  text: string;
  tooltip: string;
  warning: boolean;
}

export function exportStatusItem(status: ExportStatus): ExportStatusItem | undefined {
  if (status.health === 'off' || (status.health !== 'failing' && status.dropped === 0)) {
    return undefined;
  }
  const from = status.origin === 'managed' ? 'managed settings' : 'the setting toolgate.audit.otlp';
  const dropped = status.dropped > 0 ? `, ${status.dropped} dropped` : '';
  const lines = [
    `Toolgate's audit export to ${status.collector ?? 'the collector'} (from ${from}).`,
    status.health === 'failing'
      ? `The collector does not take records now${status.lastError !== undefined ? ` (${status.lastError})` : ''}: ${status.waiting} wait in the spool and are sent when it is back.`
      : `${status.waiting} record(s) waiting to be sent.`,
    ...(status.dropped > 0 ? [`${status.dropped} record(s) were dropped, oldest first, because the spool was full; the collector is told how many.`] : []),
  ];
  return { text: `$(cloud-upload) Audit export: ${status.waiting} waiting${dropped}`, tooltip: lines.join('\n'), warning: status.dropped > 0 };
}
