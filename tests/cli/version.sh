# One version, VERSION, and everything that has to repeat it agrees: what
# slctl prints, the Debian changelog, the RPM spec, the library's soname
# and symbol node, the Debian symbols file.
source "$(dirname "$0")/../lib.sh"

version=$(cat "$TOP/VERSION")

test_slctl_prints_the_version_of_VERSION() {
	run "$SLCTL" --version
	expect_rc 0
	[ "$out" = "slctl $version" ] || fail "slctl --version says '$out', VERSION says $version"
}

test_debian_changelog_releases_this_version() {
	local deb
	deb=$(sed -n '1s/^slctl (\([^)]*\)).*/\1/p' "$TOP/debian/changelog")
	[ "${deb%-*}" = "$version" ] || fail "debian/changelog's last entry is $deb, VERSION says $version"
}

test_rpm_spec_builds_this_version() {
	local spec
	spec=$(awk '$1 == "Version:" {print $2}' "$TOP/slctl.spec")
	[ "$spec" = "$version" ] || fail "slctl.spec has Version $spec, VERSION says $version"
	grep -q -- "^\* .* - $version-" "$TOP/slctl.spec" || fail "slctl.spec's %changelog has no entry for $version"
}

# The soname major, the symbol node and the library package name are one
# number: libsplitlock.so.N exports LIBSPLITLOCK_N and ships as libsplitlockN.
test_soname_node_and_package_name_agree() {
	local major
	major=$(sed -n 's/^SONAME_MAJOR := //p' "$TOP/Makefile")
	grep -qx "LIBSPLITLOCK_$major {" "$TOP/lib/libsplitlock.sym" || fail "no node LIBSPLITLOCK_$major in lib/libsplitlock.sym"
	grep -qx "Package: libsplitlock$major" "$TOP/debian/control" || fail "debian/control has no libsplitlock$major"
	head -1 "$TOP/debian/libsplitlock$major.symbols" | grep -qx "libsplitlock.so.$major libsplitlock$major #MINVER#" ||
		fail "debian/libsplitlock$major.symbols is not for libsplitlock.so.$major"
	grep -q "libsplitlock.so.$major\.\*" "$TOP/slctl.spec" || fail "slctl.spec does not ship libsplitlock.so.$major"
}

# Every symbol the map exports is in the Debian symbols file, and no other:
# a symbol added to the library without it would go unnoticed by dpkg.
test_debian_symbols_file_lists_every_exported_symbol() {
	local major map deb
	major=$(sed -n 's/^SONAME_MAJOR := //p' "$TOP/Makefile")
	map=$(grep -oE '^[[:space:]]+splitlock_[a-z0-9_]+;' "$TOP/lib/libsplitlock.sym" | tr -d ' \t;' | sort)
	deb=$(grep -oE '^ splitlock_[a-z0-9_]+@' "$TOP/debian/libsplitlock$major.symbols" | tr -d ' @' | sort)
	[ -n "$map" ] || fail "no symbols read from lib/libsplitlock.sym"
	[ "$map" = "$deb" ] || fail "lib/libsplitlock.sym and debian/libsplitlock$major.symbols differ: $(diff <(echo "$map") <(echo "$deb") | grep '^[<>]' | tr '\n' ' ')"
}

run_tests
