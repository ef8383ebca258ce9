/**
 * The webview protocol's schemas as the host reaches them: built on first use, not as Toolgate's bundle loads.
 *
 * src/shared/messages.ts and what it imports (approvals.ts, suggestions.ts, modelSetup.ts) build 974 of the 1,624 zod
 * schemas the host would otherwise build at load (~3 ms of a profile's first gate decision in the extension host, with
 * zod's full build, before src/zod.ts), and no gate decision needs one of them: they are for the views, and for the
 * chats a workspace stored. A `require()` is what esbuild bundles as a module initialised at its first call (an
 * `import` would run it with the bundle, an `import()` would make every reader async); the build fails if one of these
 * modules is imported statically by the rest of the host (esbuild.mjs). The webviews import the modules themselves:
 * they need them at once.
 */
import type * as Approvals from '../shared/approvals';
import type * as Messages from '../shared/messages';

let messages: typeof Messages | undefined;
let approvals: typeof Approvals | undefined;

/** messages.ts: what a view and the host send each other, and the chat's entries. */
export function messageSchemas(): typeof Messages {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- built at the first call (see above)
  return (messages ??= require('../shared/messages') as typeof Messages);
}

/** approvals.ts: the views of waiting calls, and what a person decides on them. */
export function approvalSchemas(): typeof Approvals {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- built at the first call (see above)
  return (approvals ??= require('../shared/approvals') as typeof Approvals);
}
