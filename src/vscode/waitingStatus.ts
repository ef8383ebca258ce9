/** The status-bar item that counts waiting calls (a click opens the Approvals panel). */
import * as vscode from 'vscode';

export class WaitingStatus implements vscode.Disposable {
  private readonly item = vscode.window.createStatusBarItem('toolgate.waiting', vscode.StatusBarAlignment.Left, 1000);

  constructor() {
    this.item.name = 'Toolgate: waiting calls';
    this.item.command = 'toolgate.openApprovals';
    this.item.backgroundColor = new vscode.ThemeColor('statusBarItem.warningBackground');
  }

  show(waiting: number): void {
    this.item.text = `$(shield) ${waiting} waiting`;
    this.item.tooltip = `${waiting} Toolgate call${waiting === 1 ? '' : 's'} waiting for approval: open the Approvals panel`;
    if (waiting > 0) {
      this.item.show();
    } else {
      this.item.hide();
    }
  }

  dispose(): void {
    this.item.dispose();
  }
}
