import * as assert from 'node:assert/strict';
import type { ExportStatus } from '../../src/core/audit/export/auditExport';
import { exportStatusItem } from '../../src/core/audit/export/exportStatusView';

describe('audit export: its status bar item', () => {
  const rows: { name: string; status: ExportStatus; text?: string; warning?: boolean; tooltip?: RegExp[] }[] = [
    { name: 'off: none', status: { health: 'off', waiting: 4, dropped: 2 } },
    { name: 'sending, nothing dropped: none', status: { health: 'sending', origin: 'setting', collector: 'c:4318', waiting: 3, dropped: 0 } },
    { name: 'starting: none', status: { health: 'starting', origin: 'managed', collector: 'c:4318', waiting: 0, dropped: 0 } },
    {
      name: 'failing: what waits, and why',
      status: { health: 'failing', origin: 'managed', collector: 'c:4318', waiting: 12, dropped: 0, lastError: 'connect ECONNREFUSED' },
      text: '$(cloud-upload) Audit export: 12 waiting',
      warning: false,
      tooltip: [/to c:4318 \(from managed settings\)/, /does not take records now \(connect ECONNREFUSED\): 12 wait in the spool/],
    },
    {
      name: 'records dropped: a warning, also once sending again',
      status: { health: 'sending', origin: 'setting', collector: 'c:4318', waiting: 0, dropped: 7 },
      text: '$(cloud-upload) Audit export: 0 waiting, 7 dropped',
      warning: true,
      tooltip: [/from the setting toolgate\.audit\.otlp/, /7 record\(s\) were dropped, oldest first/],
    },
  ];
  for (const row of rows) {
    it(row.name, () => {
      const item = exportStatusItem(row.status);
      if (row.text === undefined) {
        assert.equal(item, undefined);
        return;
      }
      assert.equal(item?.text, row.text);
      assert.equal(item.warning, row.warning);
      for (const pattern of row.tooltip ?? []) {
        assert.match(item.tooltip, pattern);
      }
    });
  }
});
