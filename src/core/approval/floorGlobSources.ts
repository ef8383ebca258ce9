/**
 * The protected-path floor's globs (settings.ts, `defaultProtectedPaths`) as picomatch compiles them on POSIX
 * (`{ dot: true }`): the regular expressions' sources, so that the first write judged in a window does not run
 * picomatch's parser, cold, on each of them (~1.5 ms of a profile's first gate decision). A unit test checks that
 * every source is picomatch's own for its glob and that the list is the floor, and rewrites this file when
 * `TOOLGATE_UPDATE_GLOB_SOURCES=1` (after a change of either). On Windows, where picomatch reads backslashes too,
 * every glob is compiled.
 */
export const floorGlobSources: ReadonlyMap<string, string> = new Map([
  [".vscode/**", "^(?:\\.vscode(?:\\/(?!\\.{1,2}(?:\\/|$))(?:(?:(?!(?:^|\\/)\\.{1,2}(?:\\/|$)).)*?)|$))$"],
  [".git/**", "^(?:\\.git(?:\\/(?!\\.{1,2}(?:\\/|$))(?:(?:(?!(?:^|\\/)\\.{1,2}(?:\\/|$)).)*?)|$))$"],
  ["**/.git", "^(?:(?:^|\\/|(?:(?:(?!(?:^|\\/)\\.{1,2}(?:\\/|$)).)*?)\\/)\\.git)$"],
  ["**/.git/**", "^(?:(?:^|\\/|(?:(?:(?!(?:^|\\/)\\.{1,2}(?:\\/|$)).)*?)\\/)\\.git(?:\\/(?!\\.{1,2}(?:\\/|$))(?:(?:(?!(?:^|\\/)\\.{1,2}(?:\\/|$)).)*?)|$))$"],
  [".env*", "^(?:^(?:\\.env[^/]*?)$)$"],
  ["**/.env*", "^(?:(?:^|\\/|(?:(?:(?!(?:^|\\/)\\.{1,2}(?:\\/|$)).)*?)\\/)\\.env[^/]*?\\/?)$"],
  ["**/*.code-workspace", "^(?:(?:^|\\/|(?:(?:(?!(?:^|\\/)\\.{1,2}(?:\\/|$)).)*?)\\/)(?!\\.{1,2}(?:\\/|$))(?=.)[^/]*?\\.code-workspace)$"],
  [".github/workflows/**", "^(?:\\.github\\/workflows(?:\\/(?!\\.{1,2}(?:\\/|$))(?:(?:(?!(?:^|\\/)\\.{1,2}(?:\\/|$)).)*?)|$))$"],
  [".vscode/mcp.json", "^(?:\\.vscode\\/mcp\\.json)$"],
  ["**/.vscode/**", "^(?:(?:^|\\/|(?:(?:(?!(?:^|\\/)\\.{1,2}(?:\\/|$)).)*?)\\/)\\.vscode(?:\\/(?!\\.{1,2}(?:\\/|$))(?:(?:(?!(?:^|\\/)\\.{1,2}(?:\\/|$)).)*?)|$))$"],
  [".github/actions/**", "^(?:\\.github\\/actions(?:\\/(?!\\.{1,2}(?:\\/|$))(?:(?:(?!(?:^|\\/)\\.{1,2}(?:\\/|$)).)*?)|$))$"],
  [".gitlab-ci.yml", "^(?:^(?:\\.gitlab\\-ci\\.yml)$)$"],
  [".circleci/**", "^(?:\\.circleci(?:\\/(?!\\.{1,2}(?:\\/|$))(?:(?:(?!(?:^|\\/)\\.{1,2}(?:\\/|$)).)*?)|$))$"],
  [".devcontainer/**", "^(?:\\.devcontainer(?:\\/(?!\\.{1,2}(?:\\/|$))(?:(?:(?!(?:^|\\/)\\.{1,2}(?:\\/|$)).)*?)|$))$"],
  [".devcontainer.json", "^(?:^(?:\\.devcontainer\\.json)$)$"],
  [".husky/**", "^(?:\\.husky(?:\\/(?!\\.{1,2}(?:\\/|$))(?:(?:(?!(?:^|\\/)\\.{1,2}(?:\\/|$)).)*?)|$))$"],
  ["**/.npmrc", "^(?:(?:^|\\/|(?:(?:(?!(?:^|\\/)\\.{1,2}(?:\\/|$)).)*?)\\/)\\.npmrc)$"],
  ["**/.yarnrc", "^(?:(?:^|\\/|(?:(?:(?!(?:^|\\/)\\.{1,2}(?:\\/|$)).)*?)\\/)\\.yarnrc)$"],
  ["**/.yarnrc.yml", "^(?:(?:^|\\/|(?:(?:(?!(?:^|\\/)\\.{1,2}(?:\\/|$)).)*?)\\/)\\.yarnrc\\.yml)$"],
]);
