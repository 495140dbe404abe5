# Installs what Parallax needs, idempotently, from the package registries only.
# Sourced by .ci/serve (with "app") and .ci/test (with "test"); prints one
# progress line per step and installs nothing that is already there.
#
#   app:  wasm32 target, trunk, wasm-bindgen CLI, wasm-opt (npm binaryen)
#   test: the above, plus rustfmt/clippy, Chromium and ChromeDriver (apt),
#         playwright-core (npm), cargo-fuzz
#
# A script sourced from one that already ran the same set-up skips it.

set -euo pipefail

PARALLAX_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
TRUNK_VERSION="0.21.14"
CARGO_FUZZ_VERSION="0.13.2"
E2E_DIR="$PARALLAX_ROOT/tests/e2e"
export PATH="$HOME/.cargo/bin:$E2E_DIR/node_modules/.bin:$PATH"
if [ "${PARALLAX_SETUP_DONE:-}" = "${1:-app}" ]; then
  return 0
fi

setup_step=0
setup_total=5
[ "${1:-app}" = "test" ] && setup_total=7

step() {
  setup_step=$((setup_step + 1))
  printf '[setup %d/%d] %s\n' "$setup_step" "$setup_total" "$*"
}

as_root() {
  if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi
}

apt_updated=""
apt_install() {
  if [ -z "$apt_updated" ]; then
    as_root apt-get update -qq
    apt_updated=1
  fi
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >/dev/null
}

# The wasm-bindgen version Cargo.lock resolved; the CLI must match it exactly.
locked_version() {
  awk -v name="$1" '$0 == "name = \"" name "\"" { getline; gsub(/version = |"/, ""); print; exit }' \
    "$PARALLAX_ROOT/Cargo.lock"
}

step "Rust: wasm32 target, rustfmt, clippy"
installed_targets="$(rustup target list --installed)"
if ! grep -qx wasm32-unknown-unknown <<<"$installed_targets"; then
  echo "  installing the wasm32-unknown-unknown target"
  rustup target add wasm32-unknown-unknown
fi
installed_components="$(rustup component list --installed)"
for component in rustfmt clippy; do
  if ! grep -q "^$component" <<<"$installed_components"; then
    echo "  installing $component"
    rustup component add "$component"
  fi
done

step "Node.js and npm"
if ! command -v npm >/dev/null; then
  echo "  installing nodejs and npm with apt"
  apt_install nodejs npm
fi
echo "  node $(node --version), npm $(npm --version)"

step "npm packages in tests/e2e (binaryen 132 for wasm-opt, terser, playwright-core)"
stamp="$E2E_DIR/node_modules/.parallax-lock"
if [ ! -f "$stamp" ] || ! cmp -s "$E2E_DIR/package-lock.json" "$stamp"; then
  echo "  npm ci"
  (cd "$E2E_DIR" && npm ci --no-audit --no-fund --loglevel=error)
  cp "$E2E_DIR/package-lock.json" "$stamp"
fi
echo "  $(wasm-opt --version)"

step "trunk $TRUNK_VERSION"
if [ "$(trunk --version 2>/dev/null)" != "trunk $TRUNK_VERSION" ]; then
  echo "  cargo install trunk (about 15 minutes on 2 cores)"
  cargo install trunk --locked --version "$TRUNK_VERSION"
fi

bindgen_version="$(locked_version wasm-bindgen)"
step "wasm-bindgen CLI $bindgen_version (the version in Cargo.lock)"
if [ "$(wasm-bindgen --version 2>/dev/null)" != "wasm-bindgen $bindgen_version" ]; then
  echo "  cargo install wasm-bindgen-cli (a few minutes)"
  # Not --locked: one of its locked dependencies is missing from the registry.
  cargo install wasm-bindgen-cli --version "$bindgen_version"
fi

if [ "${1:-app}" = "test" ]; then
  step "Chromium and ChromeDriver"
  if ! command -v chromium >/dev/null || ! command -v chromedriver >/dev/null; then
    echo "  installing chromium and chromium-driver with apt"
    apt_install chromium chromium-driver
  fi
  echo "  $(chromium --version 2>/dev/null | head -n 1)"

  step "cargo-fuzz $CARGO_FUZZ_VERSION"
  if [ "$(cargo fuzz --version 2>/dev/null)" != "cargo-fuzz $CARGO_FUZZ_VERSION" ]; then
    echo "  cargo install cargo-fuzz (about 4 minutes)"
    cargo install cargo-fuzz --locked --version "$CARGO_FUZZ_VERSION"
  fi
fi
export PARALLAX_SETUP_DONE="${1:-app}"
