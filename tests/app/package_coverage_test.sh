#!/usr/bin/env bash
# The package-coverage check of ./dev (tools/check-package-coverage.sh) against this build's own
# CMakeCache: it passes with ./dev's package list, and fails naming libqt6opengl6-dev when that
# package is dropped from the list (Qt6Charts needs Qt6OpenGL, which qt6-base-dev only recommends:
# the first-five-minutes failure on a fresh Debian 12), and naming lld when that is dropped.
#   package_coverage_test.sh SOURCE_DIR CMAKECACHE
set -euo pipefail
source_dir=$1
cache=$2
mapfile -t packages < <("$source_dir/dev" packages)
check=$source_dir/tools/check-package-coverage.sh

if ! "$check" "$cache" "${packages[@]}"; then
    echo "FAIL: the check rejects ./dev's own package list" >&2
    exit 1
fi
echo "ok   ./dev's package list covers every CMake package configuration used"

# must_name PACKAGE: the check fails, naming PACKAGE, when PACKAGE is dropped from ./dev's list.
must_name() {
    local without=() err
    for p in "${packages[@]}"; do [ "$p" = "$1" ] || without+=("$p"); done
    if err=$("$check" "$cache" "${without[@]}" 2>&1); then
        echo "FAIL: the check passed without $1" >&2
        exit 1
    fi
    if ! grep -q "$1" <<<"$err"; then
        echo "FAIL: the check failed without naming $1:" >&2
        echo "$err" >&2
        exit 1
    fi
    echo "ok   without $1 the check fails and names it"
}
grep -q '^Qt6OpenGL_DIR:' "$cache" || { echo "FAIL: this configuration did not use Qt6OpenGL" >&2; exit 1; }
must_name libqt6opengl6-dev
# A program found by the configure step (the linker) is held to the same rule.
if grep -q '^RECONSCOPE_LLD:FILEPATH=/' "$cache"; then
    must_name lld
else
    echo "ok   lld not found by this configuration: nothing to hold to the list"
fi
