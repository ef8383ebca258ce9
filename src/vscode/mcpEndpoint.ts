/**
 * Toolgate's MCP endpoint in this window (src/core/endpoint/mcpEndpoint.ts), started on first use: when VS Code's own
 * MCP client starts it, when the API's `mcpEndpoint()` is called, or when the person asks for a client's config. Its
 * calls go through the tool service and the gate, in the chat the MCP clients share (their session grants, their
 * terminal), each under its own name.
 */
import * as vscode from 'vscode';
import { clientConfigs } from '../core/endpoint/clientConfigs';
import { McpEndpoint, type McpEndpointInfo } from '../core/endpoint/mcpEndpoint';
import type { ToolService } from '../core/tools/service';
import type { Log } from './log';

/** The session the calls of MCP clients share. */
export const mcpEndpointChatId = 'mcp-endpoint';

export interface McpEndpointHost {
  info(): Promise<McpEndpointInfo>;
  /** Offers the ready configs and copies the one picked. */
  copyConfig(): Promise<void>;
  dispose(): void;
}

export function createMcpEndpointHost(tools: Pick<ToolService, 'runOne'>, log: Log, version: string): McpEndpointHost {
  let started: Promise<McpEndpoint> | undefined;
  const endpoint = (): Promise<McpEndpoint> => {
    started ??= McpEndpoint.start(
      {
        run: (tool, args, source, signal) => tools.runOne({ tool, args, source }, { chatId: mcpEndpointChatId, signal }),
        log,
      },
      version,
    ).then(
      (ready) => {
        log.info(`[mcp-endpoint] listening on ${ready.info().url}`);
        return ready;
      },
      (error: unknown) => {
        started = undefined; // the next use tries again
        throw new Error(`Toolgate's MCP endpoint did not start: ${error instanceof Error ? error.message : String(error)}`);
      },
    );
    return started;
  };
  return {
    info: async () => (await endpoint()).info(),
    copyConfig: async () => {
      const configs = clientConfigs((await endpoint()).info());
      const picked = await vscode.window.showQuickPick(
        configs.map((config) => ({ label: config.label, detail: config.detail, config })),
        { title: "Copy the config of Toolgate's MCP endpoint for…", placeHolder: "VS Code's own MCP client (Copilot agent mode) finds it by itself: MCP: List Servers" },
      );
      if (picked === undefined) {
        return;
      }
      await vscode.env.clipboard.writeText(picked.config.text);
      void vscode.window.showInformationMessage(
        `Copied the config for ${picked.config.label}. It holds this window's secret: keep it out of files others can read. It stops working when this window closes or reloads.`,
      );
    },
    dispose: () => {
      void started?.then((ready) => ready.dispose()).catch(() => undefined);
      started = undefined;
    },
  };
}
