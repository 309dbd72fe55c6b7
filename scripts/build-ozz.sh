#!/bin/sh
# Builds the three ozz-animation 0.16 libraries src/bench/ozz/compare.cc
# links (ozz_base, ozz_animation, ozz_animation_offline) from a source tree,
# for `make bench-ozz OZZ_SRC=DIR` (Makefile). Not part of `make` or
# `make test`, and cmake is needed only here: it is not in install-deps.sh.
#
#   scripts/build-ozz.sh SRC BUILD_DIR [SIMD_FLAGS]
#
# SRC is an ozz-animation 0.16.0 source tree (github.com/guillaumeblanc/
# ozz-animation, tag 0.16.0; its media/ folder is not needed). The build is
# ozz's own Release build (-O3 -DNDEBUG, warnings as errors), libraries only
# (no samples, howtos, tests, tools), no per-config name postfix, with
# SIMD_FLAGS as CMAKE_CXX_FLAGS. ozz 0.16 adds no instruction-set flag of its
# own: its headers pick SSE2 / SSE4.x / AVX / the scalar reference from the
# compiler's predefined macros (include/ozz/base/maths/internal/
# simd_math_config.h), so these flags alone decide what it runs, and the
# Makefile compiles compare.cc with the same ones. Empty (the default) is
# the compiler's baseline: SSE2 on x86-64, the level marrow is built at.
#
# The build is reused when BUILD_DIR holds the three libraries built from
# the same SRC with the same flags (BUILD_DIR/marrow-ozz.stamp); a change of
# flags rebuilds, a change of SRC starts BUILD_DIR afresh. The libraries are
# left where ozz's CMake puts them (BUILD_DIR/src/...). Exits 2 with a
# message when cmake or the tree is missing, or the tree is not ozz 0.16.
set -eu

if [ $# -lt 2 ]; then
    echo "usage: scripts/build-ozz.sh SRC BUILD_DIR [SIMD_FLAGS]" >&2
    exit 2
fi
src=$1
out=$2
flags=${3:-}

if [ ! -f "$src/CMakeLists.txt" ] || [ ! -f "$src/include/ozz/animation/runtime/sampling_job.h" ]; then
    echo "build-ozz: '$src' is no ozz-animation source tree (no CMakeLists.txt and" \
         "include/ozz/animation/runtime/sampling_job.h)" >&2
    exit 2
fi
if ! grep -q 'set(OZZ_VERSION_MINOR 16)' "$src/CMakeLists.txt"; then
    echo "build-ozz: '$src/CMakeLists.txt' is not ozz-animation 0.16 (compare.cc is written" \
         "against 0.16.0's API: check out tag 0.16.0)" >&2
    exit 2
fi
src=$(cd "$src" && pwd)

libs="src/base/libozz_base.a src/animation/runtime/libozz_animation.a
src/animation/offline/libozz_animation_offline.a"
stamp="src=$src flags=$flags"
if [ -f "$out/marrow-ozz.stamp" ] && [ "$(cat "$out/marrow-ozz.stamp")" = "$stamp" ]; then
    present=1
    for l in $libs; do [ -f "$out/$l" ] || present=0; done
    if [ $present = 1 ]; then
        echo "build-ozz: reusing $out (ozz 0.16 from $src, flags '$flags')"
        exit 0
    fi
fi

if ! command -v cmake >/dev/null 2>&1; then
    echo "build-ozz: cmake is needed to build ozz-animation (apt-get install cmake;" \
         "ozz 0.16 asks for cmake 3.24 or later)" >&2
    exit 2
fi
# Another source tree's cache would make cmake refuse the folder.
if [ -f "$out/CMakeCache.txt" ] && ! grep -q "^CMAKE_HOME_DIRECTORY:INTERNAL=$src\$" "$out/CMakeCache.txt"; then
    rm -rf "$out"
fi
mkdir -p "$out"
rm -f "$out/marrow-ozz.stamp"
echo "build-ozz: configuring ozz 0.16 from $src into $out (Release, flags '$flags')"
cmake -S "$src" -B "$out" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_FLAGS="$flags" \
    -Dozz_build_samples=OFF -Dozz_build_howtos=OFF -Dozz_build_tests=OFF -Dozz_build_tools=OFF \
    -Dozz_build_fbx=OFF -Dozz_build_gltf=OFF -Dozz_build_data=OFF -Dozz_build_simd_ref=OFF \
    -Dozz_build_postfix=OFF -DBUILD_SHARED_LIBS=OFF >"$out/configure.log" 2>&1 || {
    tail -20 "$out/configure.log" >&2
    echo "build-ozz: cmake could not configure ozz (log: $out/configure.log)" >&2
    exit 2
}
echo "build-ozz: building ozz_base, ozz_animation, ozz_animation_offline"
cmake --build "$out" --target ozz_animation_offline -j "$(nproc 2>/dev/null || echo 2)" >"$out/build.log" 2>&1 || {
    tail -20 "$out/build.log" >&2
    echo "build-ozz: the ozz build failed (log: $out/build.log)" >&2
    exit 2
}
for l in $libs; do
    [ -f "$out/$l" ] || { echo "build-ozz: the build left no $out/$l" >&2; exit 2; }
done
printf '%s\n' "$stamp" >"$out/marrow-ozz.stamp"
echo "build-ozz: built $out"
