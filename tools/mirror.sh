#!/bin/sh
# tools/mirror.sh: print the Debian mirror this machine's apt uses (the
# first URI ending in /debian of its deb822 sources, else of the one-line
# sources.list), for the chroots tools/deb.sh and tools/debcheck.sh make:
# they must come from the same mirror as the machine, which may be the only
# network it has.
set -eu
mirror=$(sed -n 's/^URIs: *\([^ ]*\/debian\)\/\{0,1\}$/\1/p' /etc/apt/sources.list.d/*.sources 2>/dev/null | head -1)
[ -n "$mirror" ] ||
	mirror=$(awk '$1 == "deb" && $2 ~ /\/debian\/?$/ { sub(/\/$/, "", $2); print $2; exit }' \
		/etc/apt/sources.list 2>/dev/null)
[ -n "$mirror" ] || { echo "mirror.sh: no Debian mirror in /etc/apt/sources.list or sources.list.d/*.sources." >&2; exit 1; }
echo "$mirror"
