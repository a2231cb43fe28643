#!/usr/bin/env bash
# Checks that every CMake package configuration a configure step used comes from a Debian package
# that ./dev installs, or that one of those Depends or Pre-Depends on (./dev installs without
# Recommends, so a package merely recommended does not count).
#   check-package-coverage.sh CMAKECACHE PACKAGE...
# Exit 0 when covered; 1, naming each package to add to ./dev's list, when not.
set -euo pipefail
cache=$1
shift
[ -f "$cache" ] || { echo "check-package-coverage: no $cache" >&2; exit 2; }

# Everything the listed packages pull in: the package names apt-cache prints at the start of a
# line (virtual names come in <angle brackets>; their providers follow as packages of their own).
covered=$(apt-cache depends --recurse --no-recommends --no-suggests --no-conflicts --no-breaks \
    --no-replaces --no-enhances "$@" 2>/dev/null | grep -v '^ ' | sed 's/:.*$//' | sort -u)

missing=()
# require_covered NAME FILE WHERE: FILE must belong to a package in $covered.
require_covered() {
    local owner
    owner=$(dpkg-query -S "$(realpath "$2")" 2>/dev/null | head -n 1 | cut -d: -f1) ||
        owner=$(dpkg-query -S "$2" 2>/dev/null | head -n 1 | cut -d: -f1) || owner=
    if [ -z "$owner" ]; then
        missing+=("$1 ($2 belongs to no Debian package)")
    elif ! grep -qx "$owner" <<<"$covered"; then
        missing+=("$owner (for $1, $3)")
    fi
}
while IFS= read -r line; do
    name=${line%%_DIR:*}
    dir=${line#*=}
    case "$dir" in *-NOTFOUND | "") continue ;; esac
    [ -d "$dir" ] || continue
    # The configuration file itself: a directory can be shared by several packages.
    file=$(find "$dir" -maxdepth 1 \( -name '*Config.cmake' -o -name '*-config.cmake' \) | sort | head -n 1)
    [ -n "$file" ] || continue
    require_covered "$name" "$file" "$dir"
done < <(grep -E '^[A-Za-z0-9_.+-]+_DIR:(PATH|INTERNAL|STRING)=' "$cache" | sort -u)

# Programs the project's CMakeLists found (find_program into RECONSCOPE_*), such as lld: one picked
# up by hand would make this machine's build differ from a new user's. ccache is left out: it only
# replays compiles, so the build is the same without it.
while IFS= read -r line; do
    name=${line%%:FILEPATH=*}
    file=${line#*=}
    case "$name" in RECONSCOPE_CCACHE) continue ;; esac
    case "$file" in *-NOTFOUND | "") continue ;; esac
    require_covered "$name" "$file" "$file"
done < <(grep -E '^RECONSCOPE_[A-Z0-9_]+:FILEPATH=' "$cache" | sort -u)

if [ ${#missing[@]} -gt 0 ]; then
    echo "the configure step used CMake packages or programs that ./dev does not install; add to PACKAGES in ./dev:" >&2
    printf '  %s\n' "${missing[@]}" >&2
    exit 1
fi
