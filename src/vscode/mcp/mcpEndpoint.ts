/**
 * Toolgate's MCP endpoint in this window (src/core/endpoint/mcpEndpoint.ts), started on first use (when VS Code's own
 * MCP client starts it, when the API's `mcpEndpoint()` is called, or when the person asks for a client's config) and,
 * once it was started in this workspace, as soon as Toolgate starts, at the workspace's kept port with its kept secret
 * (src/core/endpoint/endpointIdentity.ts), so the configs clients saved keep working. Its calls go through the tool
 * service and the gate, in the chat the MCP clients share (their session grants, their terminal), each under its own
 * name.
 */
import * as vscode from 'vscode';
import { clientConfigs, copiedMessage, movedWarning } from '../../core/endpoint/clientConfigs';
import { endpointKept, endpointStateKey } from '../../core/endpoint/keptEndpoint';
import { McpEndpoint, type McpEndpointInfo } from '../../core/endpoint/mcpEndpoint';
import type { KeyValueStore } from '../../core/storage/keyValueStore';
import type { ToolService } from '../../core/tools/service';
import type { Log } from '../log';

/** The session the calls of MCP clients share. */
export const mcpEndpointChatId = 'mcp-endpoint';

export interface McpEndpointHost {
  info(): Promise<McpEndpointInfo>;
  /** Offers the ready configs and copies the one picked. */
  copyConfig(): Promise<void>;
  dispose(): void;
}

export function createMcpEndpointHost(tools: Pick<ToolService, 'runOne'>, log: Log, version: string, state: KeyValueStore, secrets: vscode.SecretStorage): McpEndpointHost {
  let started: Promise<McpEndpoint> | undefined;
  const copyConfig = async (): Promise<void> => {
    const ready = await endpoint();
    const configs = clientConfigs(ready.info());
    const picked = await vscode.window.showQuickPick(
      configs.map((config) => ({ label: config.label, detail: config.detail, config })),
      { title: "Copy the config of Toolgate's MCP endpoint for…", placeHolder: "VS Code's own MCP client (Copilot agent mode) finds it by itself: MCP: List Servers" },
    );
    if (picked === undefined) {
      return;
    }
    await vscode.env.clipboard.writeText(picked.config.text);
    const message = copiedMessage(picked.config.label, await ready.copied());
    void (message.level === 'warning' ? vscode.window.showWarningMessage(message.text) : vscode.window.showInformationMessage(message.text));
  };
  const endpoint = (): Promise<McpEndpoint> => {
    started ??= McpEndpoint.start({ run: (call, signal) => tools.runOne(call, { chatId: mcpEndpointChatId, signal }), log }, version, { identity: { state, secrets } }).then(
      (ready) => {
        log.info(`[mcp-endpoint] listening on ${ready.info().url}`);
        const moved = ready.stalePort();
        if (moved !== undefined) {
          void vscode.window.showWarningMessage(movedWarning(moved), "Copy the MCP Endpoint's Config…").then((choice) => (choice === undefined ? undefined : copyConfig()));
        }
        return ready;
      },
      (error: unknown) => {
        started = undefined; // the next use tries again
        throw new Error(`Toolgate's MCP endpoint did not start: ${error instanceof Error ? error.message : String(error)}`);
      },
    );
    return started;
  };
  if (endpointKept(state.get(endpointStateKey))) {
    endpoint().catch((error: unknown) => {
      log.error(error instanceof Error ? error.message : String(error));
    });
  }
  return {
    info: async () => (await endpoint()).info(),
    copyConfig,
    dispose: () => {
      void started?.then((ready) => ready.dispose()).catch(() => undefined);
      started = undefined;
    },
  };
}
