import * as vscode from 'vscode';

const apiKeySecret = 'toolgate.apiKey';

/** The API key lives only in SecretStorage: never in settings, workspace state, logs or a webview. */
export class ApiKeyStore {
  constructor(private readonly secrets: vscode.SecretStorage) {}

  get(): Thenable<string | undefined> {
    return this.secrets.get(apiKeySecret);
  }

  /** Asks for the key in a password box; an empty answer removes the stored key, Escape changes nothing. */
  async prompt(): Promise<'stored' | 'removed' | 'unchanged'> {
    const value = await vscode.window.showInputBox({
      title: 'Toolgate: API key',
      prompt: 'API key for the OpenAI-compatible endpoint (kept in VS Code SecretStorage). Leave empty to remove it.',
      password: true,
      ignoreFocusOut: true,
    });
    if (value === undefined) {
      return 'unchanged';
    }
    if (value.trim() === '') {
      await this.secrets.delete(apiKeySecret);
      void vscode.window.showInformationMessage('Toolgate: API key removed.');
      return 'removed';
    }
    await this.secrets.store(apiKeySecret, value.trim());
    void vscode.window.showInformationMessage('Toolgate: API key stored in SecretStorage.');
    return 'stored';
  }
}
