#!/usr/bin/env bash
# Rebuilds src/codec/wasm/*.wasm from pinned upstream sources, byte for byte.
#
#   npm run build:wasm            rebuild in place
#   npm run build:wasm -- --check rebuild into a temp dir and fail if the bytes differ
#   npm run build:wasm -- --fetch only download the pinned sdists into the cache
#                                 (the native bench baselines build from them; .ci/pretest runs this)
#
# Needs Debian's clang-16, lld-16 and wasi-libc (see .ci/pretest). No emscripten:
# we link with wasm-ld-16 directly so clang never runs Debian's old wasm-opt,
# which rejects bulk-memory instructions.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../../.." && pwd)
out="$repo/src/codec/wasm"
check=0
fetch_only=0
case "${1:-}" in
  --check) check=1 ;;
  --fetch) fetch_only=1 ;;
  "") ;;
  *) echo "build-wasm: unknown option $1 (--check or --fetch)" >&2; exit 2 ;;
esac

# shellcheck source=sources.env
source "$here/sources.env"

cache="${PALIMPSEST_CACHE:-$HOME/.cache/palimpsest}/sdist"
mkdir -p "$cache"
fetch() { # spec file sha256
  local spec=$1 file=$2 sum=$3
  if [[ ! -f "$cache/$file" ]] || ! echo "$sum  $cache/$file" | sha256sum -c --status; then
    echo "build-wasm: downloading $spec from PyPI" >&2
    rm -f "$cache/$file"
    python3 -m pip download --quiet --no-deps --no-binary :all: "$spec" -d "$cache" >&2
  fi
  echo "$sum  $cache/$file" | sha256sum -c --status || { echo "build-wasm: sha256 mismatch for $file" >&2; exit 1; }
}
fetch "$BROTLI_SDIST" "$BROTLI_FILE" "$BROTLI_SHA256"
fetch "$LZ4_SDIST" "$LZ4_FILE" "$LZ4_SHA256"
(( fetch_only )) && exit 0

CC=${CC:-clang-16}
LD=${LD:-wasm-ld-16}
SYSROOT=${WASI_SYSROOT:-/usr}
command -v "$CC" >/dev/null || { echo "build-wasm: $CC not found (apt-get install clang-16 lld-16 wasi-libc)" >&2; exit 1; }
command -v "$LD" >/dev/null || { echo "build-wasm: $LD not found (apt-get install lld-16)" >&2; exit 1; }
[[ -f "$SYSROOT/lib/wasm32-wasi/libc.a" ]] || { echo "build-wasm: wasi-libc not found under $SYSROOT (apt-get install wasi-libc)" >&2; exit 1; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
tar -xzf "$cache/$BROTLI_FILE" -C "$work"
tar -xzf "$cache/$LZ4_FILE" -C "$work"
brotli_src="$work/${BROTLI_FILE%.tar.gz}/c"
# Our reduced static-dictionary search hooks into the encoder through one
# small patch (guarded calls and a struct field; see the patch's header) and
# lives in our own reduced_dict.c. Without a reduced dictionary attached the
# patched encoder takes upstream's path only and writes the same bytes.
patch --quiet --forward -p1 -d "$work/${BROTLI_FILE%.tar.gz}" <"$here/patches/reduced-dictionary.patch"
lz4_src="$work/${LZ4_FILE%.tar.gz}/lz4libs"

CFLAGS=(
  --target=wasm32-wasi --sysroot="$SYSROOT" -isystem "$SYSROOT/include/wasm32-wasi"
  -O3 -DNDEBUG -flto=thin
  -mbulk-memory -msimd128 -mnontrapping-fptoint -msign-ext -mmutable-globals
  -fno-exceptions -fvisibility=hidden
  -ffile-prefix-map="$work"=. -fdebug-prefix-map="$work"=. -Wno-unused-command-line-argument
)
# brotli's encoder calls exit() when malloc fails unless told otherwise
# (BROTLI_ENCODER_EXIT_ON_OOM is its default); in wasm that is proc_exit, a trap.
# With CLEANUP_ON_OOM it frees its state and returns failure, which
# encoder.ts reports as OUT_OF_MEMORY. The decoder never exits either way.
#
# BROTLI_BUILD_64_BIT: brotli picks its register width from the pointer size,
# so on wasm32 its bit reader refills 32 bits at a time and its match finder
# compares 4 bytes at a time; wasm has native 64-bit integers, and forcing
# the 64-bit paths changes no output (checked over q0-11) while decoding
# faster. It would also turn on the SIMD tag-matching hashers (H58, H68) at
# q5-6, which write the same bytes as H5/H6 but ran slower in wasm; the
# patch's platform.h hunk keeps them out of wasm builds.
BROTLI_CFLAGS=(-DBROTLI_ENCODER_CLEANUP_ON_OOM -DBROTLI_BUILD_64_BIT)
LDFLAGS=(
  --no-entry --strip-all --gc-sections --lto-O3
  -z stack-size=1048576 --initial-memory=2097152 --max-memory=268435456
  -L"$SYSROOT/lib/wasm32-wasi" -lc
  "$(dirname "$("$CC" -print-libgcc-file-name --target=wasm32-wasi)")/libclang_rt.builtins-wasm32.a"
)

compile() { # objdir [extra-cflags...] -- src...
  local dir=$1; shift
  local extra=()
  while [[ "$1" != "--" ]]; do extra+=("$1"); shift; done
  shift
  mkdir -p "$dir"
  local objs=() src obj
  for src in "$@"; do
    obj="$dir/$(basename "${src%.c}").o"
    "$CC" "${CFLAGS[@]}" "${extra[@]}" -I"$brotli_src/include" -I"$lz4_src" -c "$src" -o "$obj"
    objs+=("$obj")
  done
  printf '%s\n' "${objs[@]}"
}

link() { # output exports-file objs...
  local output=$1 exports=$2; shift 2
  local flags=()
  while read -r sym; do [[ -n "$sym" && "$sym" != \#* ]] && flags+=("--export=$sym"); done <"$exports"
  "$LD" "$@" "${LDFLAGS[@]}" "${flags[@]}" -o "$output"
}

mapfile -t common_objs < <(compile "$work/obj/common" "${BROTLI_CFLAGS[@]}" -- $(ls "$brotli_src"/common/*.c | LC_ALL=C sort))
# The decoder at -O2, the rest at -O3: the -O3 pipeline before LTO inlines
# and unrolls more into ProcessCommands, and V8 then runs it slower. Decode
# vs Node's zlib, q5, the per-type page sets: html 0.79-0.80 -> 0.83-0.84,
# css 0.80 -> 0.83-0.84, js 0.77-0.78 -> 0.80-0.82 (-O1 the same; -O2 for the
# encoder too changed nothing measurable).
DEC_CFLAGS=(-O2)
mapfile -t dec_objs < <(compile "$work/obj/dec" "${BROTLI_CFLAGS[@]}" "${DEC_CFLAGS[@]}" -- $(ls "$brotli_src"/dec/*.c | LC_ALL=C sort))
mapfile -t enc_objs < <(compile "$work/obj/enc" "${BROTLI_CFLAGS[@]}" -I"$here" -- $(ls "$brotli_src"/enc/*.c | LC_ALL=C sort))
mapfile -t pal_objs < <(compile "$work/obj/pal" "${BROTLI_CFLAGS[@]}" -I"$here" -I"$brotli_src" -- "$here/reduced_dict.c")
mapfile -t lz4_objs < <(compile "$work/obj/lz4" -- "$lz4_src/lz4.c" "$lz4_src/lz4hc.c" "$lz4_src/lz4frame.c" "$lz4_src/xxhash.c" "$here/lz4_shim.c" "$here/lz4_fast.c")

dest="$out"
(( check )) && dest="$work/check" && mkdir -p "$dest"
link "$dest/brotli.wasm" <(cat "$here/exports/brotli-decoder.txt" "$here/exports/brotli-encoder.txt") "${common_objs[@]}" "${dec_objs[@]}" "${enc_objs[@]}" "${pal_objs[@]}"
link "$dest/lz4.wasm" "$here/exports/lz4.txt" "${lz4_objs[@]}"

# The build id names the exact bytes, so /healthz and bench output can say which codec build ran.
{
  echo "// Generated by src/codec/native/build.sh. Do not edit."
  echo "export const CODEC_BUILD = {"
  echo "  id: \"$(cat "$dest"/brotli.wasm "$dest"/lz4.wasm | sha256sum | cut -c1-16)\","
  echo "  brotli: \"${BROTLI_FILE%.tar.gz}\","
  echo "  lz4: \"${LZ4_FILE%.tar.gz} (lz4libs)\","
  echo "} as const;"
} >"$dest/build-info.ts"

if (( check )); then
  status=0
  for f in brotli.wasm lz4.wasm build-info.ts; do
    if cmp -s "$dest/$f" "$out/$f"; then echo "build-wasm: $f matches" >&2
    else echo "build-wasm: $f differs from the committed build; run npm run build:wasm and commit" >&2; status=1; fi
  done
  exit $status
fi
ls -l "$out"/*.wasm >&2
