import path from 'node:path';
import { modelSettings, useFakeModel, type FakeModel } from './chat';
import { startCodeServer, type CodeServer, type CodeServerOptions } from './codeServer';
import { Control } from './control';
import { ApprovalsPanelDriver } from './panel';
import { Workbench } from './workbench';

export interface SessionOptions extends CodeServerOptions {
  /**
   * The scripted model (useFakeModel) for the enclosing `describe`, its settings under the workspace's own: `true`
   * with the Approvals panel opening for every new call (see useFakeModel); `'address'` with only the model's address
   * and name, the panel's reveal left at its default.
   */
  model?: boolean | 'address';
  /** The control helper extension (Toolgate's API from the test, see control.ts), installed with its environment. */
  control?: boolean;
  /**
   * Options known only once the describe's earlier `before` hooks have run (a port, a server they started), read when
   * VS Code starts: their settings, environment and extensions are added to the rest, the others replace it.
   */
  late?: () => CodeServerOptions;
}

export interface Session {
  readonly server: CodeServer;
  readonly workbench: Workbench;
  /** The scripted model; only with `model` set. */
  readonly model: FakeModel;
  /** The control helper extension; only with `control` set. */
  readonly control: Control;
  /** A file of the opened workspace, by its relative path. */
  readonly file: (relative: string) => string;
  /** The Approvals panel of the workbench. */
  readonly panel: () => ApprovalsPanelDriver;
}

/** Options merged in order: each one's settings, environment and extensions add to the earlier ones'. */
function merged(...parts: CodeServerOptions[]): CodeServerOptions {
  return parts.reduce((all, part) => ({
    ...all,
    ...part,
    ...(all.settings || part.settings ? { settings: { ...all.settings, ...part.settings } } : {}),
    ...(all.env || part.env ? { env: { ...all.env, ...part.env } } : {}),
    ...(all.extraExtensions || part.extraExtensions ? { extraExtensions: [...(all.extraExtensions ?? []), ...(part.extraExtensions ?? [])] } : {}),
  }));
}

function present<T>(value: T | undefined, missing: string): T {
  if (value === undefined) {
    throw new Error(missing);
  }
  return value;
}

/**
 * Registers mocha hooks that start one real VS Code for the enclosing `describe` (code-server + a Chromium page on
 * its workbench) and stop it afterwards, with the scripted model and the control extension when asked for. The
 * returned object throws if it is used while nothing is running, or for what was not asked for.
 */
export function useSession({ model: withModel, control: withControl, late, ...options }: SessionOptions = {}): Session {
  const model = withModel ? useFakeModel() : undefined;
  const control = withControl ? new Control() : undefined;
  let server: CodeServer | undefined;
  let workbench: Workbench | undefined;
  before(async () => {
    server = await startCodeServer(
      merged(
        model ? { settings: withModel === 'address' ? modelSettings(model.fake) : model.workspaceSettings() } : {},
        control ? { env: control.env, extraExtensions: [control.vsix] } : {},
        options,
        late?.() ?? {},
      ),
    );
    workbench = await Workbench.open(server);
    // The session is ready once its helper is: a test's first wait (a card, a frame) then counts from there, not from
    // an extension host still starting (under CI load two such waits ran out before a call had left).
    await control?.ready();
  });
  after(async () => {
    await workbench?.close();
    await server?.stop();
    control?.reset();
    workbench = undefined;
    server = undefined;
  });
  const session: Session = {
    get server(): CodeServer {
      return present(server, 'code-server is not running');
    },
    get workbench(): Workbench {
      return present(workbench, 'the workbench is not open');
    },
    get model(): FakeModel {
      return present(model, 'this session has no scripted model: useSession({ model: true })');
    },
    get control(): Control {
      return present(control, 'this session has no control extension: useSession({ control: true })');
    },
    file: (relative) => path.join(session.server.workspace, relative),
    panel: () => new ApprovalsPanelDriver(session.workbench),
  };
  return session;
}
