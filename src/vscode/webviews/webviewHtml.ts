import { randomBytes } from 'node:crypto';
import * as vscode from 'vscode';
import type { ViewKind } from '../../shared/messages';

/** A nonce from the OS CSPRNG: 128 bits, base64 (a valid CSP nonce alphabet). */
export function makeNonce(): string {
  return randomBytes(16).toString('base64');
}

/** Only the bundle and the static media folder can ever be loaded by a Toolgate webview. */
export function localResourceRoots(extensionUri: vscode.Uri): vscode.Uri[] {
  return [vscode.Uri.joinPath(extensionUri, 'dist'), vscode.Uri.joinPath(extensionUri, 'media')];
}

export function webviewOptions(extensionUri: vscode.Uri): vscode.WebviewOptions {
  return { enableScripts: true, enableCommandUris: false, localResourceRoots: localResourceRoots(extensionUri) };
}

const titles: Record<ViewKind, string> = { chat: 'Toolgate Chat', approvals: 'Toolgate Approvals', suggestions: 'Toolgate Suggestions' };

/**
 * The page of a Toolgate webview: a strict CSP (`default-src 'none'`), scripts only by nonce, styles and fonts only
 * from the extension's own resources. The theme comes from VS Code's CSS variables.
 */
export function renderWebviewHtml(webview: vscode.Webview, extensionUri: vscode.Uri, view: ViewKind): string {
  const nonce = makeNonce();
  const asset = (...segments: string[]): string =>
    webview.asWebviewUri(vscode.Uri.joinPath(extensionUri, ...segments)).toString();
  const csp = [
    "default-src 'none'",
    `style-src ${webview.cspSource} 'nonce-${nonce}'`,
    `font-src ${webview.cspSource}`,
    `img-src ${webview.cspSource} data:`,
    `script-src 'nonce-${nonce}'`,
  ].join('; ');
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<title>${titles[view]}</title>
<link rel="stylesheet" nonce="${nonce}" href="${asset('dist', 'media', 'codicons', 'codicon.css')}" id="vscode-codicon-stylesheet">
<link rel="stylesheet" nonce="${nonce}" href="${asset('media', 'webview.css')}">
</head>
<body data-view="${view}">
<main id="root" data-state="connecting" aria-busy="true"></main>
<script type="module" nonce="${nonce}" src="${asset('dist', 'webview', `${view}.js`)}"></script>
</body>
</html>`;
}
