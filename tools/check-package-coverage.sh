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
while IFS= read -r line; do
    name=${line%%_DIR:*}
    dir=${line#*=}
    case "$dir" in *-NOTFOUND | "") continue ;; esac
    [ -d "$dir" ] || continue
    # The configuration file itself: a directory can be shared by several packages.
    file=$(find "$dir" -maxdepth 1 \( -name '*Config.cmake' -o -name '*-config.cmake' \) | sort | head -n 1)
    [ -n "$file" ] || continue
    owner=$(dpkg-query -S "$(realpath "$file")" 2>/dev/null | head -n 1 | cut -d: -f1) ||
        owner=$(dpkg-query -S "$file" 2>/dev/null | head -n 1 | cut -d: -f1) || owner=
    if [ -z "$owner" ]; then
        missing+=("$name ($file belongs to no Debian package)")
    elif ! grep -qx "$owner" <<<"$covered"; then
        missing+=("$owner (for $name, $dir)")
    fi
done < <(grep -E '^[A-Za-z0-9_.+-]+_DIR:(PATH|INTERNAL|STRING)=' "$cache" | sort -u)

if [ ${#missing[@]} -gt 0 ]; then
    echo "the configure step used CMake packages that ./dev does not install; add to PACKAGES in ./dev:" >&2
    printf '  %s\n' "${missing[@]}" >&2
    exit 1
fi
