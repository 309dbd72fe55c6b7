#!/bin/sh
# Installs the Debian packages marrow needs to build, test and render headless.
# Idempotent: prints nothing and does nothing when every package is present.
# Needs root (or sudo) only when something is missing.
set -eu

PACKAGES="build-essential pkg-config liblua5.4-dev lua5.4 libglfw3-dev libepoxy-dev \
libcglm-dev libstb-dev libxml2-dev libjansson-dev libegl-dev libegl-mesa0 libgl1-mesa-dri \
libgles-dev fonts-dejavu-core xvfb xauth xdotool python3 chromium \
libassimp-dev assimp-testmodels libmeshoptimizer-dev gltfpack libpng-dev libdeflate-dev"

# `install-deps.sh --fuzz` (make fuzz, make fuzz-smoke; CI runs those):
# clang with its libFuzzer and sanitizer runtimes, instead of the list above,
# so a plain build never pulls in a second compiler.
if [ "${1:-}" = "--fuzz" ]; then
    PACKAGES="clang-14 libclang-rt-14-dev"
fi
# `install-deps.sh --blender` (tests/cli_fbx_blender.sh, which runs it): Blender,
# a second FBX reader the tests compare poses with (never linked into marrow),
# only for that suite: it pulls ~150 packages a plain build does not need.
if [ "${1:-}" = "--blender" ]; then
    PACKAGES="blender"
fi
# `install-deps.sh --node` (tests/tools/gltf_validate.sh, which runs it): node
# and npm for the Khronos glTF Validator (an npm package the tool installs
# outside the repository); only what is missing, so a node that came with its
# own npm (NodeSource's) is left alone.
if [ "${1:-}" = "--node" ]; then
    PACKAGES=""
    command -v node >/dev/null 2>&1 || PACKAGES="nodejs"
    command -v npm >/dev/null 2>&1 || PACKAGES="$PACKAGES npm"
fi
# `install-deps.sh --deb` (make deb): the packaging tools, only for that.
if [ "${1:-}" = "--deb" ]; then
    PACKAGES="dpkg-dev"
fi

missing=""
for p in $PACKAGES; do
    if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
        missing="$missing $p"
    fi
done
[ -z "$missing" ] && exit 0

echo "install-deps: installing:$missing" >&2
SUDO=""
if [ "$(id -u)" -ne 0 ]; then
    if command -v sudo >/dev/null 2>&1; then SUDO="sudo"; else
        echo "install-deps: need root to install:$missing" >&2; exit 1
    fi
fi
export DEBIAN_FRONTEND=noninteractive
# Refresh the package lists only when an install fails for want of them.
if ! $SUDO apt-get install -y -q --no-install-recommends $missing >/dev/null 2>&1; then
    $SUDO apt-get update -q >/dev/null
    $SUDO apt-get install -y -q --no-install-recommends $missing >/dev/null
fi
echo "install-deps: done" >&2
