import path from 'node:path';
import { useFakeModel } from './chat';
import { Control } from './control';
import { ApprovalsPanelDriver } from './panel';
import { useCodeServer } from './session';

/**
 * Registers the hooks of a real VS Code for the enclosing `describe` with the scripted model and the control helper
 * extension (Toolgate's API from the test), and returns them with two helpers: a workspace file's path, the panel.
 */
export function useControlledCodeServer(): {
  model: ReturnType<typeof useFakeModel>;
  control: Control;
  session: ReturnType<typeof useCodeServer>;
  file: (relative: string) => string;
  panel: () => ApprovalsPanelDriver;
} {
  const model = useFakeModel();
  const control = new Control();
  const session = useCodeServer(() => ({ env: control.env, extraExtensions: [control.vsix], settings: model.workspaceSettings() }));
  return {
    model,
    control,
    session,
    file: (relative) => path.join(session.server.workspace, relative),
    panel: () => new ApprovalsPanelDriver(session.workbench),
  };
}
