import { startCodeServer, type CodeServer, type CodeServerOptions } from './codeServer';
import { Workbench } from './workbench';

export interface Session {
  readonly server: CodeServer;
  readonly workbench: Workbench;
}

/**
 * Registers mocha hooks that start one real VS Code for the enclosing `describe` (code-server + a Chromium page on
 * its workbench) and stop it afterwards. The returned object throws if it is used while nothing is running.
 */
export function useCodeServer(options: CodeServerOptions | (() => CodeServerOptions) = {}): Session {
  let server: CodeServer | undefined;
  let workbench: Workbench | undefined;
  before(async () => {
    server = await startCodeServer(typeof options === 'function' ? options() : options);
    workbench = await Workbench.open(server);
  });
  after(async () => {
    await workbench?.close();
    await server?.stop();
    workbench = undefined;
    server = undefined;
  });
  return {
    get server(): CodeServer {
      if (!server) {
        throw new Error('code-server is not running');
      }
      return server;
    },
    get workbench(): Workbench {
      if (!workbench) {
        throw new Error('the workbench is not open');
      }
      return workbench;
    },
  };
}
