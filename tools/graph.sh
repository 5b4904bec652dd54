#!/bin/sh
# tools/graph.sh [BUILD_DIR]: the include-and-call graph of libsplitlock,
# between its files and between its folders, and a failure on any circle.
#
# Edges:
#  - include: a file of lib/ or shared/ that includes another ("..." form,
#    looked up next to the file, then under lib/ and shared/, as the
#    compiler does with the Makefile's -I options);
#  - call: an object of BUILD_DIR/lib/ whose undefined symbol another
#    object defines (nm), so a call, or a use of a variable or table,
#    from one source file into another.
# A folder depends on another when one of its files does. Both graphs
# must be free of circles: a file that calls into a file that calls it
# back, or a folder that another folder calls back, fails (exit 1) with
# the circle named. The graph is written as Graphviz DOT to
# BUILD_DIR/graph.dot (files clustered by folder) and printed as text:
# each folder with the folders it uses.
set -eu
# GRAPH_TOP: another tree to draw (tests/cli/graph.sh), with its own lib/.
cd "${GRAPH_TOP:-$(dirname "$0")/..}"
B=${1:-${BUILD_DIR:-build}}
NM=${NM:-nm}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

[ -d "$B/lib" ] || { echo "graph: no objects under $B/lib; run make first" >&2; exit 2; }

# ---- include edges -------------------------------------------------------
find lib shared -name '*.[ch]' 2>/dev/null | LC_ALL=C sort >"$tmp/files"
# One awk over every file: the compiler's lookup, among the files listed.
# shellcheck disable=SC2046
awk -v list="$tmp/files" '
	function norm(p,   n, i, k, part, out) {
		n = split(p, part, "/"); k = 0
		for (i = 1; i <= n; i++) {
			if (part[i] == "." || part[i] == "") continue
			if (part[i] == ".." && k > 0) { k--; continue }
			out[++k] = part[i]
		}
		p = out[1]; for (i = 2; i <= k; i++) p = p "/" out[i]
		return p
	}
	BEGIN { while ((getline f < list) > 0) known[f] = 1 }
	/^[ \t]*#[ \t]*include[ \t]*"/ {
		inc = $0; sub(/^[^"]*"/, "", inc); sub(/".*/, "", inc)
		dir = FILENAME; sub(/\/[^\/]*$/, "", dir)
		n = split(dir "/" inc " lib/" inc " shared/" inc, cand, " ")
		for (i = 1; i <= n; i++) { c = norm(cand[i]); if (c in known) { print FILENAME, c; break } }
	}' $(cat "$tmp/files") >"$tmp/include"

# ---- call edges ----------------------------------------------------------
# Only objects of sources that exist: a build directory kept across a move
# of files still holds the old objects.
find "$B/lib" -name '*.o' | LC_ALL=C sort | while read -r o; do
	src=${o#"$B/"}
	[ ! -f "${src%.o}.c" ] || echo "$o"
done >"$tmp/objects"
[ -s "$tmp/objects" ] || { echo "graph: no objects under $B/lib; run make first" >&2; exit 2; }
# nm -A: "OBJECT: VALUE TYPE SYMBOL" (defined) and "OBJECT:  U SYMBOL".
# shellcheck disable=SC2046
{ "$NM" -A --defined-only -g $(cat "$tmp/objects"); "$NM" -A -u $(cat "$tmp/objects"); } |
awk -v b="$B/" '
	{ o = $1; sub(/:.*/, "", o); sub("^" b, "", o); sub(/\.o$/, ".c", o); sym = $NF }
	$(NF - 1) == "U" { use[++n] = sym " " o; next }
	{ def[sym] = o }
	END { for (i = 1; i <= n; i++) { split(use[i], u, " ")
		if (u[1] in def && def[u[1]] != u[2]) print u[2], def[u[1]] } }' |
	LC_ALL=C sort -u >"$tmp/call"

cat "$tmp/include" "$tmp/call" | awk '$1 != $2' | LC_ALL=C sort -u >"$tmp/file-edges"
awk '{ a = $1; b = $2; sub(/\/[^\/]*$/, "", a); sub(/\/[^\/]*$/, "", b);
       if (a != b) print a, b }' "$tmp/file-edges" | LC_ALL=C sort -u >"$tmp/folder-edges"

# ---- drawing --------------------------------------------------------------
{
	echo 'digraph libsplitlock {'
	echo '  rankdir=LR; node [shape=box, fontsize=10];'
	awk '{ print $1; print $2 }' "$tmp/file-edges" | LC_ALL=C sort -u |
	awk '{ d = $0; sub(/\/[^\/]*$/, "", d); files[d] = files[d] " \"" $0 "\"" }
	     END { for (d in files) { c = d; gsub(/[^A-Za-z0-9]/, "_", c);
		printf "  subgraph cluster_%s { label=\"%s/\";%s; }\n", c, d, files[d] } }'
	awk '{ printf "  \"%s\" -> \"%s\";\n", $1, $2 }' "$tmp/file-edges"
	echo '}'
} >"$B/graph.dot"

echo "Folders and the folders they use (include or call), $(wc -l <"$tmp/file-edges") file edges in $B/graph.dot:"
awk '{ print $1 }' "$tmp/files" | sed 's|/[^/]*$||' | LC_ALL=C sort -u |
while read -r d; do
	uses=$(awk -v d="$d" '$1 == d { printf "%s%s", sep, $2; sep = " " }' "$tmp/folder-edges")
	printf '  %-12s -> %s\n' "$d/" "${uses:-(nothing)}"
done

# ---- circles --------------------------------------------------------------
# Tarjan's strongly connected components: each component of more than one
# node is a circle (or several sharing nodes), printed with its members.
circles() {
	awk '
	function visit(v,   i, w) {
		index_[v] = low[v] = ++counter; stack[++sp] = v; on[v] = 1
		for (i = 1; i <= nout[v]; i++) {
			w = out[v, i]
			if (!(w in index_)) { visit(w); if (low[w] < low[v]) low[v] = low[w] }
			else if (on[w] && index_[w] < low[v]) low[v] = index_[w]
		}
		if (low[v] == index_[v]) {
			n = 0; members = ""
			do { w = stack[sp--]; on[w] = 0; n++; members = w " " members } while (w != v)
			if (n > 1) { print "  " members; found = 1 }
		}
	}
	{ out[$1, ++nout[$1]] = $2; node[$1] = node[$2] = 1 }
	END { for (v in node) if (!(v in index_)) visit(v); exit found }' "$1"
}
status=0
for level in file folder; do
	if ! circles "$tmp/$level-edges" >"$tmp/loops"; then
		echo "graph: circles between ${level}s (each line: the members of one):" >&2
		cat "$tmp/loops" >&2
		status=1
	fi
done
[ $status -ne 0 ] || echo "No circles between files or folders."
exit $status
