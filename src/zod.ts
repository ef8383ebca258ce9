/**
 * zod as Toolgate uses it: the small build (`zod/mini`, functions such as `z.optional(s)` and checks such as
 * `s.check(z.maxLength(9))` instead of methods), with zod's English messages, which every schema's errors are worded
 * in. Every module that builds a schema imports zod from here, in the host, the webviews and the tests.
 *
 * Why not zod's full build: it gives every schema some fifty methods as it is made, and it is four times the code.
 * Toolgate's bundle builds some 600 schemas as it loads. With the full build, zod's own start was ~9 ms of the bundle's
 * top level in the extension host; with this one a profile's first gate decision went from 47-49 ms to 38-42 ms
 * (bench/foundation.ts).
 */
import { config } from 'zod/mini';
import en from 'zod/v4/locales/en.js';

// zod keeps its configuration on globalThis, shared by every copy of zod in the process (the full build sets this
// same one as it loads).
config(en());

export * from 'zod/mini';
