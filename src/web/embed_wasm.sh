#!/bin/sh
# Writes the WebAssembly module as base64 into a script the page loads:
#   embed_wasm.sh oomlens.wasm oomlens-wasm.js
set -eu
{ printf 'globalThis.OOMLENS_WASM = "'; base64 -w0 "$1"; printf '";\n'; } > "$2.tmp"
mv "$2.tmp" "$2"
