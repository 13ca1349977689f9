#!/usr/bin/env bash
# The one entry point for the README quick start.
#   ./build.sh demo   install what is missing, build, diagnose the bundled example log
#   ./build.sh test   install what is missing, build, run the whole test suite
#   ./build.sh build  install what is missing and build (build/oomlens)
#   ./build.sh deps   only install the Debian packages the build needs
# BUILD_DIR (default: build) and BUILD_TYPE (default: RelWithDebInfo) can be set.
set -euo pipefail
cd "$(dirname "$0")"

BUILD_DIR=${BUILD_DIR:-build}
BUILD_TYPE=${BUILD_TYPE:-RelWithDebInfo}
PACKAGES=(g++ make cmake pkg-config libre2-dev nlohmann-json3-dev libcli11-dev libgtest-dev)

say() { printf 'build.sh: %s\n' "$*" >&2; }

install_deps() {
  local missing=()
  for p in "${PACKAGES[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing+=("$p")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  say "installing missing Debian packages: ${missing[*]}"
  local sudo=""
  if [ "$(id -u)" -ne 0 ]; then
    command -v sudo >/dev/null || { say "error: not root and no sudo; install ${missing[*]} by hand"; exit 2; }
    sudo="sudo"
  fi
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

build() {
  install_deps
  cmake -S . -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE="$BUILD_TYPE" ${CMAKE_ARGS:-} >/dev/null
  cmake --build "$BUILD_DIR" -j "$(nproc)"
}

case "${1:-}" in
  deps) install_deps ;;
  build) build ;;
  demo)
    build
    say "running: $BUILD_DIR/oomlens testdata/examples/multihost_e0101.log"
    # Exit code 1 means "an OOM was found", which is the point of the demo.
    "$BUILD_DIR/oomlens" testdata/examples/multihost_e0101.log || [ $? -eq 1 ]
    ;;
  test)
    build
    ctest --test-dir "$BUILD_DIR" --output-on-failure -j "$(nproc)"
    ;;
  *)
    sed -n '2,7p' "$0" | sed 's/^# \{0,1\}//' >&2
    exit 2
    ;;
esac
