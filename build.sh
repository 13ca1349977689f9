#!/usr/bin/env bash
# The one entry point for the README quick start.
#   ./build.sh demo   install what is missing, build, diagnose the bundled example log
#   ./build.sh test   install what is missing, build, run the whole test suite
#   ./build.sh build  install what is missing and build (build/oomlens)
#   ./build.sh deps   only install the Debian packages the build needs
#   ./build.sh hardening  ASan+UBSan build (clang): whole test suite, every bundled and
#                     corpus log, then each libFuzzer target for FUZZ_SECONDS (default 30)
#   ./build.sh browser  end-to-end tests of `oomlens serve` in headless Chromium
#   ./build.sh sarif    every SARIF oomlens writes through Microsoft's SARIF validator
#   ./build.sh screenshots  the docs' pictures (docs/img) taken again from this build
#   ./build.sh python   the Python package: a wheel in dist/ (offline: Debian's
#                     setuptools, wheel and pybind11), installed in a fresh venv and run
#   ./build.sh web      the static page (docs/web.md): the core compiled to WebAssembly
#                     with Debian's emscripten and RE2 built from Debian's source, into
#                     WEB_DIR/site (default build-web/site), then its tests in Chromium
#   ./build.sh format   every C++ file as .clang-format formats it (lists those that differ)
#   ./build.sh score    the corpus scores (../shared/tools/corpus-check on each collection)
#                     and the leave-one-family-out run (tests/score/): figures, not a verdict
#   ./build.sh package  the .deb (CPack): a --prefix install checked, the package
#                     installed with apt-get and run on the example, then removed;
#                     and the -DOOMLENS_STATIC=ON binary built and run
# BUILD_DIR (default: build) and BUILD_TYPE (default: RelWithDebInfo) can be set.
set -euo pipefail
cd "$(dirname "$0")"

BUILD_DIR=${BUILD_DIR:-build}
BUILD_TYPE=${BUILD_TYPE:-RelWithDebInfo}
PACKAGES=(g++ make cmake pkg-config python3 libre2-dev nlohmann-json3-dev libcli11-dev libgtest-dev libbenchmark-dev zlib1g-dev libzstd-dev libcpp-httplib-dev
          python3-dev pybind11-dev python3-pybind11)
# What the Python tests use: pytest, the real PyTorch (CPU) and IPython the hook is tested with,
# Dask (dask, distributed, fsspec) the fleet runs on, and the readers' oracles for allocators'
# records: protobuf and golang-go (`go tool pprof`).
TEST_PACKAGES=(python3-pytest python3-torch python3-ipython python3-dask python3-distributed python3-fsspec python3-protobuf golang-go)

say() { printf 'build.sh: %s\n' "$*" >&2; }

install_deps() {
  install_packages "${PACKAGES[@]}"
}

install_packages() {
  local missing=()
  for p in "$@"; do
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

# Runs the sanitized binary over every log it can find; a sanitizer report fails.
scan_all_logs() {
  local bin=$1 logs=() code
  mapfile -t logs < <(find testdata ../shared/corpus -name '*.log' 2>/dev/null | sort)
  for log in "${logs[@]}"; do
    code=0
    "$bin" --format json "$log" >/dev/null 2>"$bin.stderr" || code=$?
    if [ "$code" -gt 2 ] || grep -q "runtime error\|AddressSanitizer\|LeakSanitizer" "$bin.stderr"; then
      say "error: $log: exit $code under sanitizers"; cat "$bin.stderr" >&2; exit 1
    fi
  done
  say "sanitized oomlens read ${#logs[@]} logs cleanly"
}

run_fuzzers() {
  local dir=$1 seconds=${FUZZ_SECONDS:-30} seeds="$1/fuzz-seeds"
  rm -rf "$seeds" && mkdir -p "$seeds"/{scan,size,expr,rules,report,pickle,pprof,jsonline,pattern}
  local n=0 f
  while IFS= read -r f; do cp "$f" "$seeds/scan/$((n++))_${f##*/}"; done \
    < <(find testdata ../shared/corpus -name '*.log' -size -256k 2>/dev/null)
  while IFS= read -r f; do cp "$f" "$seeds/rules/$((n++))_${f##*/}"; done < <(find rules testdata/bad-rules -name '*.json')
  while IFS= read -r f; do cp "$f" "$seeds/report/$((n++))_${f##*/}"; done < <(find testdata/expected -name '*.json' -size -16k)
  for f in tests/fuzz/regressions/*; do  # past findings: <target>_<what>
    [ -e "$f" ] && cp "$f" "$seeds/${f##*/}" && mv "$seeds/${f##*/}" "$seeds/$(basename "$f" | cut -d_ -f1)/"
  done
  printf '%s\n' 29.49G 147.64M 0B -2.55G '3.95G (4,237,689,856 bytes)' '2.00GiB (rounded to 2147483648)' \
    '20.00 MiB' '1024 kB' 9999999999999999999999G | split -l 1 - "$seeds/size/s"
  printf '%s\n' 'requested_bytes > free_bytes and has(program)' 'requested_bytes / free_bytes < 1.1' \
    '{requested_bytes - free_bytes:ratio} x' 'max(requested_bytes, 1G) >= 2 * free_bytes or not has(program)' \
    | split -l 1 - "$seeds/expr/e"
  printf '%s\n' '{"log":"Memstats: Using (GB) 3.10 / 30.75\n","stream":"stderr","time":"2026-01-01T00:00:00Z"}' \
    '{"message":"OOMKilled","level":3,"ok":true,"x":null,"f":-1.5e+3}' '{"log":"first","log":"second"}' \
    '{"textPayload":"Attempting to reserve 29.49G","resource":{"labels":{"pod_name":"worker-3"}}}' \
    | split -l 1 - "$seeds/jsonline/j"
  /usr/bin/python3 - "$seeds/pickle" <<'PY'  # a memory snapshot's shape, in each protocol the reader takes
import pickle, sys
frames = [{"filename": "train.py", "line": 42, "name": "step"}]
snapshot = {"segments": [{"device": 0, "total_size": 2097152, "segment_type": "small", "blocks": [
    {"size": 1048576, "state": "active_allocated", "frames": frames}] * 3}],
    "device_traces": [[{"action": "oom", "size": 3 << 30, "device_free": 1 << 30, "frames": frames}]],
    "allocator_settings": {"expandable_segments": True, "threshold": 0.5, "tags": ("a", b"b", {1, 2})}}
for protocol in (2, 3, 4, 5):
    open(f"{sys.argv[1]}/snapshot_{protocol}", "wb").write(pickle.dumps(snapshot, protocol=protocol))
PY
  /usr/bin/python3 - "$seeds/pattern" <<'PY'  # each built-in pattern over a line of its signature's samples
import glob, json, sys
size = r"\d+(?:\.\d+)?\s?(?i:[kmgt]i?b?|bytes)?\b"  # {size} is long: a short stand-in
n = 0
for f in sorted(glob.glob("rules/signatures/*.json")):
    for sig in json.load(open(f))["signatures"]:
        lines = [l for x in sig.get("samples", []) for l in x.get("text", "").splitlines()] or [""]
        patterns = [sig.get(k) for k in ("start", "follow")] + sig.get("facts", []) + (sig.get("items") or {}).get("fields", [])
        for i, p in enumerate(x for x in patterns if isinstance(x, str)):
            open(f"{sys.argv[1]}/p{n}", "w", encoding="latin-1", errors="replace").write(
                p.replace("{size}", size).replace("\n", " ") + "\n" + lines[i % len(lines)])
            n += 1
PY
  cp testdata/records/*.pickle "$seeds/pickle/"
  for f in testdata/records/*.prof; do gzip -dc "$f" > "$seeds/pprof/${f##*/}"; done
  for target in scan size expr rules report pickle pprof jsonline pattern; do
    mkdir -p "$dir/fuzz-corpus/$target"
    say "fuzzing ${target}_fuzzer for ${seconds}s"
    "$dir/${target}_fuzzer" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len=16384 -print_final_stats=1 \
      "$dir/fuzz-corpus/$target" "$seeds/$target" 2>"$dir/${target}_fuzzer.log" \
      || { tail -40 "$dir/${target}_fuzzer.log" >&2; say "error: ${target}_fuzzer found a crash"; exit 1; }
    grep -E "stat::number_of_executed_units" "$dir/${target}_fuzzer.log" | sed "s/^/build.sh: ${target}_fuzzer /" >&2
  done
}

hardening() {
  install_deps
  install_packages clang libclang-rt-14-dev
  local dir=${HARDENING_DIR:-build-hardening}
  CC=clang CXX=clang++ cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DOOMLENS_SANITIZE=ON \
    -DOOMLENS_BUILD_FUZZ=ON -DOOMLENS_BUILD_TESTS=ON >/dev/null
  cmake --build "$dir" -j "$(nproc)"
  export ASAN_OPTIONS=abort_on_error=1:detect_leaks=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
  # The re-shaping property test runs in ./build.sh test; under ASan its 2,000 runs take too long.
  ctest --test-dir "$dir" --output-on-failure -j "$(nproc)" -E ReshapedLogsKeepTheirIncidents
  scan_all_logs "$dir/oomlens"
  run_fuzzers "$dir"
}

browser() {
  build
  install_packages chromium
  command -v node >/dev/null && command -v npm >/dev/null || install_packages nodejs npm
  (cd tests/browser && npm ci --no-audit --no-fund --silent)
  node tests/browser/e2e.mjs "$BUILD_DIR/oomlens" "$BUILD_DIR/browser"
  node tests/browser/notebook.mjs "$BUILD_DIR/python" "$BUILD_DIR/browser"
}

# Debian's source of a package, for building it with another toolchain: adds the
# deb-src line of this release when apt has none, then 'apt-get source' into $2.
debian_source() {
  local package=$1 into=$2 sudo=""
  [ "$(id -u)" -ne 0 ] && sudo="sudo"
  if ! grep -rqs '^Types:.*deb-src\|^deb-src ' /etc/apt/sources.list /etc/apt/sources.list.d/; then
    local codename
    codename=$(. /etc/os-release && echo "$VERSION_CODENAME")
    say "adding Debian's source packages for $codename to apt (/etc/apt/sources.list.d/oomlens-deb-src.sources)"
    printf 'Types: deb-src\nURIs: http://deb.debian.org/debian\nSuites: %s\nComponents: main\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n' \
      "$codename" | $sudo tee /etc/apt/sources.list.d/oomlens-deb-src.sources >/dev/null
    $sudo apt-get update -qq
  fi
  rm -rf "$into" && mkdir -p "$into"
  (cd "$into" && apt-get source -qq "$package" >/dev/null 2>&1) || { say "error: apt-get source $package failed"; exit 2; }
}

# RE2 for WebAssembly, from Debian's source package: its Unicode tables are
# generated from Debian's unicode-data (the source ships without them).
build_wasm_re2() {
  local dir=$1
  [ -f "$dir/install/lib/cmake/re2/re2Config.cmake" ] && return 0
  debian_source re2 "$dir/src"
  local src
  src=$(find "$dir/src" -maxdepth 1 -type d -name 're2-*' | head -1)
  make -s -C "$src" REBUILD_TABLES=1 re2/perl_groups.cc re2/unicode_casefold.cc re2/unicode_groups.cc
  emcmake cmake -S "$src" -B "$dir/build" -DCMAKE_BUILD_TYPE=Release -DRE2_BUILD_TESTING=OFF \
    -DCMAKE_INSTALL_PREFIX="$dir/install" >/dev/null
  cmake --build "$dir/build" -j "$(nproc)" >/dev/null
  cmake --install "$dir/build" >/dev/null
}

web() {
  local dir
  dir=$(realpath -m "${WEB_DIR:-build-web}")
  install_packages emscripten dpkg-dev unicode-data perl python3 make cmake nlohmann-json3-dev chromium
  command -v node >/dev/null && command -v npm >/dev/null || install_packages nodejs npm
  export NODE_PATH=${NODE_PATH:+$NODE_PATH:}/usr/share/nodejs  # emcc's acorn, from Debian's node-acorn
  build_wasm_re2 "$dir/re2"
  emcmake cmake -S . -B "$dir/core" -DCMAKE_BUILD_TYPE=Release -Dre2_DIR="$dir/re2/install/lib/cmake/re2" >/dev/null
  cmake --build "$dir/core" -j "$(nproc)"
  rm -rf "$dir/site" && cp -r "$dir/core/site" "$dir/site"
  say "the static page is in $dir/site (open $dir/site/index.html, or publish the folder)"
  build  # the CLI whose reports the page must equal
  (cd tests/browser && npm ci --no-audit --no-fund --silent)
  node tests/browser/web.mjs "$dir/site" "$BUILD_DIR/oomlens" "$dir/browser"
}

# The docs' screenshots taken again from this build (docs/img/*.png, with the text
# each page showed beside it, which ./build.sh browser checks them against).
screenshots() {
  OOMLENS_UPDATE_SCREENSHOTS=1 browser
  if [ "${WEB:-0}" = 1 ]; then OOMLENS_UPDATE_SCREENSHOTS=1 web; fi
  say "docs/img renewed: review and commit it (WEB=1 ./build.sh screenshots also renews the static page's)"
}

sarif() {
  build
  command -v node >/dev/null && command -v npm >/dev/null || install_packages nodejs npm
  (cd tests/sarif && npm ci --no-audit --no-fund --silent)
  tests/sarif/validate.sh "$BUILD_DIR/oomlens"
}

as_root() {
  if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi
}

# Fails unless the file exists; says which.
expect_file() {
  [ -e "$1" ] || { say "error: $1 is missing after the install"; exit 1; }
}

# The example must be diagnosed: exit 1 (an OOM) and the E0101 incident.
expect_diagnosis() {
  local bin=$1 out code=0
  out=$("$bin" testdata/examples/multihost_e0101.log) || code=$?
  [ "$code" -eq 1 ] && grep -q "E0101 TPU program load failed" <<<"$out" \
    || { say "error: $bin did not diagnose the example (exit $code)"; exit 1; }
}

package() {
  install_packages dpkg-dev
  build
  local prefix
  prefix=$(mktemp -d)
  cmake --install "$BUILD_DIR" --prefix "$prefix" >/dev/null
  for f in bin/oomlens share/man/man1/oomlens.1 share/bash-completion/completions/oomlens \
           share/zsh/vendor-completions/_oomlens share/fish/vendor_completions.d/oomlens.fish \
           share/oomlens/rules/causes/common.json share/doc/oomlens/README.md; do
    expect_file "$prefix/$f"
  done
  expect_diagnosis "$prefix/bin/oomlens"
  bash -c "source '$prefix/share/bash-completion/completions/oomlens'; COMP_WORDS=(oomlens --form); COMP_CWORD=1; _oomlens; [ \"\${COMPREPLY[*]}\" = --format ]" \
    || { say "error: the bash completion does not complete --form"; exit 1; }
  rm -rf "$prefix"
  say "--prefix install: binary, man page, completions, rules and docs in place"
  rm -f "$BUILD_DIR"/oomlens_*.deb
  (cd "$BUILD_DIR" && cpack -G DEB >/dev/null)
  local deb
  deb=$(ls "$BUILD_DIR"/oomlens_*_amd64.deb)
  say "built $deb; $(dpkg-deb -f "$deb" Depends)"
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "./$deb" >/dev/null
  expect_diagnosis /usr/bin/oomlens
  expect_file /usr/share/man/man1/oomlens.1
  /usr/bin/oomlens --version >&2
  as_root dpkg -r oomlens >/dev/null
  say "the installed package diagnosed the example; removed again"
  local static_dir=${BUILD_DIR}-static
  cmake -S . -B "$static_dir" -DCMAKE_BUILD_TYPE=Release -DOOMLENS_STATIC=ON >/dev/null
  cmake --build "$static_dir" -j "$(nproc)" >/dev/null
  ldd "$static_dir/oomlens" >/dev/null 2>&1 && { say "error: $static_dir/oomlens is not static"; exit 1; }
  expect_diagnosis "$static_dir/oomlens"
  say "static binary $static_dir/oomlens ($(du -h "$static_dir/oomlens" | cut -f1)) diagnosed the example"
}

# The wheel, built offline from Debian's packages (no registry of Python packages is
# reachable: --no-build-isolation), then installed in a fresh venv that sees Debian's
# packages and run on the example, and as the fleet on a local Dask cluster.
# The C++ as .clang-format writes it: the files that differ are listed with the fix.
format_check() {
  install_packages clang-format
  local differ=() f
  while IFS= read -r f; do
    clang-format --style=file "$f" | cmp -s "$f" - || differ+=("$f")
  done < <(git ls-files 'src/*.cc' 'src/*.h' 'include/*.h' 'tests/*.cc' 'tests/*.h')
  if [ ${#differ[@]} -gt 0 ]; then
    say "error: ${#differ[@]} files differ from .clang-format: ${differ[*]}"
    say "help: clang-format -i ${differ[*]}"
    exit 1
  fi
  say "every C++ file is formatted as .clang-format says"
}

# The scores on real logs: each corpus collection, then each family left out in turn
# (its signatures removed, its logs read with everything else). They measure; the
# unit tests judge. Skipped, saying so, where ../shared/corpus is absent.
score() {
  build
  local check=../shared/tools/corpus-check dir
  if [ ! -x "$check" ] && [ ! -f "$check" ]; then say "no $check here: scores skipped"; return 0; fi
  for dir in ../shared/corpus/*/; do
    say "corpus $(basename "$dir"): $(/usr/bin/python3 "$check" "$BUILD_DIR/oomlens" "$dir" | tail -1)"
  done
  /usr/bin/python3 tests/score/leave_one_family_out.py --corpus-check "$check" "$BUILD_DIR/oomlens"
}

python_package() {
  install_deps
  install_packages python3-setuptools python3-wheel python3-pip python3-venv python3-dask python3-distributed \
    python3-fsspec
  rm -rf dist build-python
  /usr/bin/python3 -m pip wheel --no-build-isolation --no-deps -w dist . >/dev/null
  local wheel venv
  wheel=$(ls dist/oomlens-*.whl)
  venv=$(mktemp -d /tmp/oomlens-venv.XXXXXX)
  /usr/bin/python3 -m venv --system-site-packages "$venv"
  "$venv/bin/pip" install --no-index --no-deps "$wheel" >/dev/null
  (cd "$venv" && "$venv/bin/python" -m oomlens "$OLDPWD/testdata/examples/multihost_e0101.log" >/dev/null) || [ $? -eq 1 ]
  # the console script pip installed, and the typing files the wheel carries
  local script_code=0
  "$venv/bin/oomlens" testdata/examples/multihost_e0101.log > "$venv/script.txt" || script_code=$?
  if [ "$script_code" -ne 1 ] || ! grep -q "E0101 TPU program load failed" "$venv/script.txt"; then
    say "the wheel's oomlens console script exited $script_code: $(head -3 "$venv/script.txt")"
    return 1
  fi
  /usr/bin/python3 -m zipfile -l "$wheel" | grep -q 'oomlens/py.typed' && /usr/bin/python3 -m zipfile -l "$wheel" | grep -q 'oomlens/_core.pyi' \
    || { say "error: $wheel lacks oomlens/py.typed or oomlens/_core.pyi"; return 1; }
  (cd "$venv" && "$venv/bin/python" -c "import oomlens, sys; r = oomlens.scan(sys.argv[1]); assert r.incidents, r" \
    "$OLDPWD/testdata/examples/multihost_e0101.log")
  local fleet_code=0
  (cd "$venv" && "$venv/bin/python" -m oomlens fleet --workers 2 -q "$OLDPWD/testdata/logs/tpu_runtime" \
    > "$venv/fleet.txt") || fleet_code=$?
  if [ "$fleet_code" -ne 1 ] || ! grep -q '^oomlens fleet: 15 jobs, 15 with an OOM' "$venv/fleet.txt"; then
    say "python -m oomlens fleet from the venv exited $fleet_code: $(head -3 "$venv/fleet.txt")"
    return 1
  fi
  rm -rf "$venv"
  say "$wheel built, installed in a fresh venv and run on the example (python -m and the oomlens script) and as a fleet"
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
    install_packages "${TEST_PACKAGES[@]}"
    build
    ctest --test-dir "$BUILD_DIR" --output-on-failure -j "$(nproc)"
    if [ -x "$BUILD_DIR/micro_bench" ]; then  # the micro-benchmarks still run (figures: docs/performance.md)
      "$BUILD_DIR/micro_bench" --benchmark_min_time=0.01 >/dev/null
      say "micro-benchmarks ran"
    fi
    ;;
  hardening) hardening ;;
  browser) browser ;;
  web) web ;;
  sarif) sarif ;;
  screenshots) screenshots ;;
  format) format_check ;;
  score) score ;;
  package) package ;;
  python) python_package ;;
  *)
    sed -n '2,23p' "$0" | sed 's/^# \{0,1\}//' >&2
    exit 2
    ;;
esac
