#!/usr/bin/env bash
# tests/check-header-docs.sh [HEADER [MAP]]: the public header and the
# linker map agree, in one checked form.
#
#  - every symbol the map exports has one gtk-doc block in the header
#    ("/**", " * NAME:", its text, " * Since: NODE"), NODE being the map's
#    node that exports it, right above its declaration;
#  - every such block, and every function the header declares, is a
#    symbol the map exports;
#  - every _free(), _unref() and _drop() has its cleanup helper
#    (SPLITLOCK_DEFINE_CLEANUP), and every helper wraps an exported one;
#  - no comment still gives a release number as "Since X".
#
# Prints one line per problem and exits 1 when there is any, 0 otherwise.
set -u
TOP=$(cd "$(dirname "$0")/.." && pwd)
header=${1:-$TOP/lib/libsplitlock.h}
map=${2:-$TOP/lib/libsplitlock.sym}

awk -v header="$header" '
# The map: node of each exported symbol.
FNR == NR {
	if (match($0, /^[A-Z][A-Z0-9_.]* *\{/)) {
		node = $1
	} else if (match($0, /^[ \t]+splitlock_[a-z0-9_]+;/)) {
		s = $1; sub(/;.*/, "", s)
		if (s in node_of) problem("the map exports " s " twice")
		node_of[s] = node
		order[++nsyms] = s
	}
	next
}

function problem(text) { print header ": " text; bad = 1 }

# A gtk-doc block: its name, its text, its Since.
/^\/\*\*$/ {
	in_block = 1; block_name = ""; block_since = ""; block_text = 0; block_line = FNR
	next
}
in_block && block_name == "" && match($0, /^ \* [a-z_0-9]+:$/) {
	block_name = $2; sub(/:$/, "", block_name)
	if (block_name in doc_line) problem(block_name " is documented twice")
	doc_line[block_name] = FNR
	next
}
in_block && match($0, /^ \* Since: /) {
	block_since = substr($0, RLENGTH + 1)
	next
}
in_block && /^ \*\/$/ {
	in_block = 0
	if (block_name == "") { problem("line " block_line ": a /** block without \" * name:\""); next }
	since_of[block_name] = block_since
	if (!block_text) problem(block_name ": its block says nothing but its name")
	expect_decl = block_name
	next
}
in_block {
	if ($0 !~ /^ \*$/) block_text = 1
	next
}

# Plain comments: skipped, but no release numbers as "Since X" any more.
/^[ \t]*\/\*/ { in_comment = 1 }
in_comment {
	if ($0 ~ /Since:? [0-9]/) problem("line " FNR ": \"" $0 "\": Since names a node of the map")
	if ($0 ~ /\*\//) in_comment = 0
	next
}

/^SPLITLOCK_DEFINE_CLEANUP\(/ {
	f = $0; sub(/^[^,]*, */, "", f); sub(/\).*/, "", f)
	helper_of[f] = 1
	next
}

# Attribute lines belong to the declaration below them.
/^SPLITLOCK_(MUST_CHECK|NONNULL)/ { next }

# A declaration: the first splitlock_NAME( of a line at file level.
/^[a-z]/ && !/^typedef/ && match($0, /splitlock_[a-z0-9_]+\(/) {
	name = substr($0, RSTART, RLENGTH - 1)
	declared[name] = FNR
	if (expect_decl != "" && expect_decl != name)
		problem(expect_decl ": its block stands above " name "(), not above its declaration")
	expect_decl = ""
	next
}
# A return type on its own line keeps the block waiting for its name.
/^(const |enum |struct |unsigned |int |bool |void |size_t|uint|int64)/ && !/;/ { next }
/^[^ \t]/ && expect_decl != "" && !/^$/ {
	problem(expect_decl ": its block is not right above its declaration")
	expect_decl = ""
}

END {
	for (i = 1; i <= nsyms; i++) {
		s = order[i]
		if (!(s in doc_line)) problem(s " (exported in " node_of[s] ") has no /** " s ": block")
		else if (since_of[s] != node_of[s])
			problem(s ": Since: \"" since_of[s] "\", but the map exports it in " node_of[s])
		if (!(s in declared)) problem(s " is exported but not declared")
		if (s ~ /_(free|unref|drop)$/ && !(s in helper_of))
			problem(s " has no cleanup helper (SPLITLOCK_DEFINE_CLEANUP)")
	}
	for (s in doc_line) if (!(s in node_of)) problem(s " is documented but not exported")
	for (s in declared) if (!(s in node_of)) problem(s "() is declared but not exported")
	for (s in helper_of) if (!(s in node_of)) problem("the cleanup helper " s "p wraps " s ", which is not exported")
	if (nsyms == 0) problem("no symbols read from the map")
	exit bad
}
' "$map" "$header"
