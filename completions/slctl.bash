# bash completion for slctl(8)
# One function per subcommand (_slctl_<command>); _slctl dispatches.

_slctl_global_opts="--root --json --verbose --help --version"
_slctl_modes="off warn seq fatal ratelimit: default"
# The backends and log forms come from slctl itself ("--backend help",
# "--input-format help", as systemctl -t help), so they are this build's.

_slctl_status() {
	COMPREPLY=($(compgen -W "--help $_slctl_global_opts" -- "$1"))
}

_slctl_mitigate() {
	local cur=$1
	if [[ $cur == -* ]]; then
		COMPREPLY=($(compgen -W "--persist --dry-run --help $_slctl_global_opts" -- "$cur"))
	else
		COMPREPLY=($(compgen -W "on off" -- "$cur"))
	fi
}

_slctl_mode() {
	local cur=$1 prev=$2
	case $prev in
	--backend|-b)
		COMPREPLY=($(compgen -W "$(slctl mode --backend help 2>/dev/null)" -- "$cur"))
		return ;;
	esac
	if [[ $cur == -* ]]; then
		COMPREPLY=($(compgen -W "--persist --now --backend --dry-run --run-tools --help $_slctl_global_opts" -- "$cur"))
	else
		COMPREPLY=($(compgen -W "$_slctl_modes" -- "$cur"))
		[[ ${COMPREPLY[0]-} == ratelimit: ]] && compopt -o nospace
	fi
}

_slctl_run() {
	local cur=$1 prev=$2 i
	case $prev in
	--report)
		_filedir
		return ;;
	--report-format)
		COMPREPLY=($(compgen -W "json junit" -- "$cur"))
		return ;;
	--max)
		return ;;
	esac
	# After '--': the command and its arguments, as for any command.
	for ((i = 1; i < cword; i++)); do
		if [[ ${words[i]} == -- ]]; then
			_command_offset $((i + 1))
			return
		fi
	done
	COMPREPLY=($(compgen -W "--no-misery --check --max --report --report-format -- --help $_slctl_global_opts" -- "$cur"))
}

_slctl_offenders() {
	local cur=$1 prev=$2
	case $prev in
	--input|-i)
		_filedir
		return ;;
	--input-format)
		COMPREPLY=($(compgen -W "$(slctl offenders --input-format help 2>/dev/null)" -- "$cur"))
		return ;;
	--group-by|-g)
		COMPREPLY=($(compgen -W "task process comm exe unit" -- "$cur"))
		return ;;
	--format|-F)
		COMPREPLY=($(compgen -W "table json prometheus" -- "$cur"))
		return ;;
	--since|--until|-S|-U)
		COMPREPLY=($(compgen -W "boot now today yesterday -1h -2h -30m -1d @" -- "$cur"))
		return ;;
	--top|-t)
		return ;;
	--output|-o)
		# A comma-separated list: complete the word after the last comma.
		local prefix=${cur%"${cur##*,}"}
		COMPREPLY=($(compgen -P "$prefix" -W "COMM PID TGID KIND ACTION EVENTS FIRST LAST IPS EXE CMDLINE UNIT" -- "${cur##*,}"))
		compopt -o nospace
		return ;;
	esac
	# --follow prints one line an event: no input, nothing that shapes a table.
	local w opts="--input --input-format --group-by --since --until --top --follow --format --output --noheadings --raw --full --help"
	for w in "${COMP_WORDS[@]:0:COMP_CWORD}"; do
		[[ $w == --follow || $w == -f ]] &&
			opts="--group-by --since --until --format --help"
	done
	COMPREPLY=($(compgen -W "$opts $_slctl_global_opts" -- "$cur"))
}

_slctl_probe() {
	COMPREPLY=($(compgen -W "--simulate --msr --help $_slctl_global_opts" -- "$1"))
}

_slctl() {
	local cur prev cmd i
	_init_completion -n : || return
	case $prev in
	--root) _filedir -d; return ;;
	esac
	for ((i = 1; i < cword; i++)); do
		case ${words[i]} in
		--root) ((i++)) ;;
		-*) ;;
		*) cmd=${words[i]}; break ;;
		esac
	done
	if [[ -z ${cmd-} ]]; then
		COMPREPLY=($(compgen -W "status mitigate mode run offenders probe $_slctl_global_opts" -- "$cur"))
		return
	fi
	if declare -F "_slctl_$cmd" >/dev/null; then
		"_slctl_$cmd" "$cur" "$prev"
	else
		COMPREPLY=($(compgen -W "$_slctl_global_opts" -- "$cur"))
	fi
}
complete -F _slctl slctl
