# bash completion for slctl(8)

_slctl_global_opts='--root --json --verbose --help --version'

_slctl() {
	local cur prev words cword
	_init_completion || return

	local cmd= i
	for ((i = 1; i < cword; i++)); do
		case ${words[i]} in
		--root) ((i++)) ;;
		-*) ;;
		*) cmd=${words[i]}; break ;;
		esac
	done

	if [[ $prev == --root ]]; then
		_filedir -d
		return
	fi

	case $cmd in
	'')
		COMPREPLY=($(compgen -W "status mitigate $_slctl_global_opts" -- "$cur"))
		;;
	status)
		COMPREPLY=($(compgen -W "$_slctl_global_opts" -- "$cur"))
		;;
	mitigate)
		COMPREPLY=($(compgen -W "on off --persist --dry-run $_slctl_global_opts" -- "$cur"))
		;;
	esac
} && complete -F _slctl slctl
