# Each completion file, loaded in its own shell, offers every command and
# every option that `slctl --help` and `slctl CMD --help` list. The lists come
# from slctl itself at test time, so an option added to a command without
# its completions fails here.
# COMPLETIONS=installed checks the files a package installed under /usr.
source "$(dirname "$0")/../lib.sh"

if [ "${COMPLETIONS:-tree}" = installed ]; then
	BASH_FILE=/usr/share/bash-completion/completions/slctl
	ZSH_DIR=/usr/share/zsh/vendor-completions
	FISH_FILE=/usr/share/fish/vendor_completions.d/slctl.fish
else
	BASH_FILE=$TOP/completions/slctl.bash
	ZSH_DIR=$TOP/completions
	FISH_FILE=$TOP/completions/slctl.fish
fi

# The completions ask slctl for the backends and log forms: the one tested.
PATH="$(dirname "$SLCTL"):$PATH"

commands() {
	"$SLCTL" --help | sed -n '/^Commands:/,/^$/p' | awk 'NF && !/:$/ {print $1}'
}

# long_options [CMD]: every --option the help text names, the global ones
# included: slctl takes them after the command too.
long_options() {
	{ "$SLCTL" --help; [ -z "${1-}" ] || "$SLCTL" "$1" --help; } |
		grep -oE -- '(^|[^[:alnum:]-])--[a-z][a-z-]*' | grep -oE -- '--[a-z-]+' | sort -u
}

short_options() {
	{ "$SLCTL" --help; [ -z "${1-}" ] || "$SLCTL" "$1" --help; } |
		grep -oE -- '^  -[[:alpha:]],' | grep -oE -- '-[[:alpha:]]' | sort -u
}

bash_offers() { # WORDS...: what bash completion offers for the last word
	bash -c 'source /usr/share/bash-completion/bash_completion 2>/dev/null
		source "$0"
		COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); COMP_LINE="$*"; COMP_POINT=${#COMP_LINE}
		_slctl; printf "%s\n" "${COMPREPLY[@]}"' "$BASH_FILE" "$@"
}

zsh_offers() {
	[ -f "$ZSH_DIR/_slctl" ] || fail "no $ZSH_DIR/_slctl"
	timeout 30 zsh "$TOP/tests/completion/zsh-complete" "$ZSH_DIR" "$@"
}

fish_offers() {
	[ -f "$FISH_FILE" ] || fail "no $FISH_FILE"
	local line=$*
	# complete -C takes the command line as one string; keep the empty last word.
	[ -n "${@: -1}" ] || line+=" "
	local offers
	offers=$(timeout 30 fish --no-config -c 'source $argv[1]; complete -C $argv[2]' "$FISH_FILE" "$line") || return 1
	cut -f1 <<<"$offers"
}

# expect_offered SHELL WANTED WORDS...: SHELL offers each line of WANTED
# for the command line WORDS.
expect_offered() {
	local shell=$1 wanted=$2 offered missing
	shift 2
	offered=$("${shell}_offers" "$@") || fail "$shell completion failed for '$*'"
	# Files, not <(...): a testbed without /dev/fd must fail, not pass.
	sort -u <<<"$wanted" >"$T/wanted"
	sort -u <<<"$offered" >"$T/offered"
	missing=$(comm -23 "$T/wanted" "$T/offered") || fail "cannot compare the offers"
	[ -z "$missing" ] || fail "$shell does not offer for '$*': $(echo $missing) (it offers: $(echo $offered))"
}

test_the_help_lists_what_the_tests_compare() {
	# Guards the extraction itself: an empty list would pass everything.
	[ "$(commands | wc -l)" -ge 4 ] || fail "commands: $(commands)"
	long_options offenders | grep -qx -- --group-by || fail "offenders: $(long_options offenders)"
	short_options mode | grep -qx -- -b || fail "mode: $(short_options mode)"
	long_options | grep -qx -- --root || fail "globals: $(long_options)"
}

every_command_and_option() { # SHELL OPTION-PREFIX SHORT(yes|no)
	local shell=$1 prefix=$2 short=$3 cmd wanted
	expect_offered "$shell" "$(commands)" slctl ''
	for cmd in $(commands); do
		wanted=$(long_options "$cmd")
		[ "$short" = no ] || wanted+=$'\n'$(short_options "$cmd")
		expect_offered "$shell" "$wanted" slctl "$cmd" "$prefix"
		# Global options before the command do not hide its own.
		expect_offered "$shell" "$(long_options "$cmd")" slctl --json "$cmd" --
	done
}

# bash completion offers long options only, as most bash completions do.
test_bash_offers_every_command_and_option() {
	every_command_and_option bash -- no
}

test_zsh_offers_every_command_and_option() {
	require_cmd zsh
	every_command_and_option zsh - yes
}

test_fish_offers_every_command_and_option() {
	require_cmd fish
	every_command_and_option fish - yes
}

# The modes the library knows, as slctl's refusal of an unknown one names
# them ("use off, warn, ..., ratelimit:N (1 <= N <= 1000), or default."),
# one a line as a shell offers them ("ratelimit:" waits for its rate).
library_modes() {
	"$SLCTL" mode bogus --persist 2>&1 >/dev/null |
		sed -n "s/^.*'bogus' is not a mode; use \(.*\) (1 <= N <= 1000), or default\.\$/\1/p" |
		sed 's/, /\n/g; s/:N$/:/'
	echo default
}

every_value() { # SHELL
	expect_offered "$1" $'on\noff' slctl mitigate ''
	[ "$(library_modes | wc -l)" -ge 6 ] || fail "the modes slctl names: $(library_modes)"
	expect_offered "$1" "$(library_modes)" slctl mode ''
	expect_offered "$1" "$(printf '%s\n' auto grub grubby kernel-install systemd-boot rpm-ostree kernelstub mkinitcpio refind)" \
		slctl mode fatal --backend ''
	# What the library lists, whatever it is: the completions ask it.
	[ "$("$SLCTL" mode --backend help | wc -l)" -ge 9 ] || fail "mode --backend help: too few"
	expect_offered "$1" "$("$SLCTL" mode --backend help)" slctl mode fatal --backend ''
	expect_offered "$1" "$(printf '%s\n' table json prometheus)" slctl offenders --format ''
	expect_offered "$1" "$(printf '%s\n' task process comm exe unit)" slctl offenders --group-by ''
	expect_offered "$1" "$(printf '%s\n' auto kmsg kmsg-nul dmesg journal)" slctl offenders --input-format ''
	[ "$("$SLCTL" offenders --input-format help | wc -l)" -ge 10 ] || fail "--input-format help: too few"
	expect_offered "$1" "$("$SLCTL" offenders --input-format help)" slctl offenders --input-format ''
}

test_bash_offers_the_values_of_each_argument() {
	every_value bash
}

test_zsh_offers_the_values_of_each_argument() {
	require_cmd zsh
	every_value zsh
}

test_fish_offers_the_values_of_each_argument() {
	require_cmd fish
	every_value fish
}

# After --follow, the options it refuses are not offered (usage errors).
test_no_shell_offers_what_follow_refuses() {
	local shell offered o
	require_cmd zsh
	require_cmd fish
	for shell in bash zsh fish; do
		offered=$("${shell}_offers" slctl offenders --follow --) || fail "$shell failed"
		grep -qx -- --group-by <<<"$offered" || fail "$shell: no --group-by after --follow: $offered"
		for o in --input --input-format --top --output --noheadings --raw --full; do
			grep -qx -- "$o" <<<"$offered" && fail "$shell offers $o after --follow"
		done
		offered=$("${shell}_offers" slctl offenders --) || fail "$shell failed"
		grep -qx -- --output <<<"$offered" || fail "$shell: no --output without --follow"
	done
	true
}

test_zsh_and_fish_complete_the_column_list_after_a_comma() {
	require_cmd zsh
	require_cmd fish
	zsh_offers slctl offenders -o COMM, | grep -qx EVENTS || fail "zsh: $(zsh_offers slctl offenders -o COMM,)"
	fish_offers slctl offenders -o COMM, | grep -qx COMM,EVENTS || fail "fish: $(fish_offers slctl offenders -o COMM,)"
}

run_tests
