import * as vscode from 'vscode';
import { ModelError, type ChatMessage, type ChatModel, type CompleteOptions, type ToolSpec, type TurnResult } from '../../core/llm/client';
import type { EditorModelsPort } from '../../core/llm/modelSetupFlow';

/** VS Code's own language models, as the model setup lists and tests them. */
export const editorModels: EditorModelsPort = {
  families: async () => (await vscode.lm.selectChatModels()).map((candidate) => candidate.family),
  model: (name) => new VsCodeLmModel(name),
};

/** The agent's model from VS Code's Language Model API (toolgate.model.provider = vscode-lm). */
export class VsCodeLmModel implements ChatModel {
  constructor(private readonly family: string) {}

  async complete(messages: ChatMessage[], tools: ToolSpec[], options: CompleteOptions): Promise<TurnResult> {
    const models = await vscode.lm.selectChatModels(this.family === '' ? {} : { family: this.family });
    const model = models[0] ?? (await vscode.lm.selectChatModels())[0];
    if (!model) {
      throw new ModelError(
        'model-not-found',
        'VS Code offers no language models here (install a chat model extension, or set toolgate.model.provider to openai-compatible)',
      );
    }
    const source = new vscode.CancellationTokenSource();
    // Removed when the turn ends: the task's signal outlives every turn.
    const onAbort = (): void => source.cancel();
    options.signal?.addEventListener('abort', onAbort, { once: true });
    const lmMessages = messages.flatMap((message): vscode.LanguageModelChatMessage[] => {
      switch (message.role) {
        case 'system':
        case 'user':
          return [vscode.LanguageModelChatMessage.User(message.content ?? '')];
        case 'assistant':
          return [
            vscode.LanguageModelChatMessage.Assistant([
              ...(message.content ? [new vscode.LanguageModelTextPart(message.content)] : []),
              ...(message.toolCalls ?? []).map(
                (call) => new vscode.LanguageModelToolCallPart(call.id, call.name, JSON.parse(call.arguments || '{}') as object),
              ),
            ]),
          ];
        case 'tool':
          return [
            vscode.LanguageModelChatMessage.User([
              new vscode.LanguageModelToolResultPart(message.toolCallId ?? '', [new vscode.LanguageModelTextPart(message.content ?? '')]),
            ]),
          ];
      }
    });
    try {
      const response = await model.sendRequest(
        lmMessages,
        { tools: tools.map((tool) => ({ name: tool.name, description: tool.description, inputSchema: tool.parameters })) },
        source.token,
      );
      let text = '';
      const toolCalls: TurnResult['toolCalls'] = [];
      for await (const part of response.stream) {
        if (part instanceof vscode.LanguageModelTextPart) {
          text += part.value;
          options.onText?.(part.value);
        } else if (part instanceof vscode.LanguageModelToolCallPart) {
          toolCalls.push({ id: part.callId, name: part.name, arguments: JSON.stringify(part.input) });
        }
      }
      return { text, toolCalls, finishReason: toolCalls.length > 0 ? 'tool_calls' : 'stop' };
    } catch (error) {
      if (options.signal?.aborted === true) {
        throw new ModelError('cancelled', 'cancelled');
      }
      throw new ModelError('server', `VS Code's language model failed: ${error instanceof Error ? error.message : String(error)}`);
    } finally {
      options.signal?.removeEventListener('abort', onAbort);
      source.dispose();
    }
  }
}
