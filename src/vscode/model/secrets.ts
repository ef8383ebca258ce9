import * as vscode from 'vscode';
import { keyFor, keyOrigin, parseStoredKey, serializeKey, type HeldKey } from '../../core/llm/setup';
import { originOf } from '../../shared/modelProviders';

const apiKeySecret = 'toolgate.apiKey';

/**
 * The API key lives only in SecretStorage: never in settings, workspace state, logs or a webview. It is stored with the
 * origin it was set for and sent only there (see `keyFor`), so pointing Toolgate at another address does not hand it
 * the key meant for the first.
 */
export class ApiKeyStore {
  private readonly changed = new vscode.EventEmitter<void>();
  /** The stored key changed: here, or in another window of this VS Code. */
  readonly onDidChange = this.changed.event;
  private readonly watch: vscode.Disposable;

  constructor(private readonly secrets: vscode.SecretStorage) {
    this.watch = secrets.onDidChange((event) => {
      if (event.key === apiKeySecret) {
        this.changed.fire();
      }
    });
  }

  private async held(): Promise<HeldKey | undefined> {
    return parseStoredKey(await this.secrets.get(apiKeySecret));
  }

  /** The key to send to `address`, if the stored one is for it (`configuredBaseUrl` places a key stored without one). */
  async keyFor(address: string, configuredBaseUrl: string): Promise<string | undefined> {
    return keyFor(await this.held(), address, configuredBaseUrl);
  }

  /** The origin the stored key is sent to, or undefined when no key is stored. */
  async heldFor(configuredBaseUrl: string): Promise<string | undefined> {
    const held = await this.held();
    return held === undefined ? undefined : keyOrigin(held, configuredBaseUrl);
  }

  /**
   * Asks for the key for `address` in a password box; an empty answer removes the stored key, Escape changes nothing.
   * The key is kept for that address's origin only.
   */
  async prompt(address: string): Promise<'stored' | 'removed' | 'unchanged'> {
    const origin = originOf(address);
    if (origin === undefined) {
      void vscode.window.showErrorMessage(`Toolgate: '${address}' is not an address, so no key can be set for it. Fix the model address first.`);
      return 'unchanged';
    }
    const value = await vscode.window.showInputBox({
      title: `Toolgate: API key for ${origin}`,
      prompt: `Kept in VS Code's secret storage and sent only to ${origin}. Leave empty to remove the stored key.`,
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
    await this.secrets.store(apiKeySecret, serializeKey(value.trim(), origin));
    void vscode.window.showInformationMessage(`Toolgate: API key stored in SecretStorage, for ${origin} only.`);
    return 'stored';
  }

  dispose(): void {
    this.watch.dispose();
    this.changed.dispose();
  }
}
