#!/usr/bin/env bash
# The installed tree works for a C program: `cmake --install` into a fresh
# prefix, then examples/c/vadd.c built against it twice — through
# find_package(asc) (the asc::asc target) and through pkg-config — and run.
#   check_install.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
build=$1
src=$(cd "$2" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
prefix=$work/prefix
cmake --install "$build" --prefix "$prefix" >/dev/null

mkdir "$work/project"
cat >"$work/project/CMakeLists.txt" <<CMAKE
cmake_minimum_required(VERSION 3.20)
project(asc_consumer C)
find_package(asc 1 REQUIRED)
add_executable(vadd $src/examples/c/vadd.c)
target_link_libraries(vadd PRIVATE asc::asc)
CMAKE
cmake -S "$work/project" -B "$work/project/build" -G Ninja -DCMAKE_PREFIX_PATH="$prefix" >/dev/null
cmake --build "$work/project/build" >/dev/null
"$work/project/build/vadd"

libdir=$(dirname "$(find "$prefix" -name asc.pc)")/..
export PKG_CONFIG_PATH=$libdir/pkgconfig
cc -std=c99 -Wall -Werror "$src/examples/c/vadd.c" $(pkg-config --cflags --libs asc) \
  -Wl,-rpath,"$(pkg-config --variable=libdir asc)" -o "$work/vadd-pkgconfig"
"$work/vadd-pkgconfig"
