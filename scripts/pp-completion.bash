# bash completion for pp-record and pp-analyze.               -*- shell-script -*-
#
# Installed by `make install` as $(PREFIX)/share/bash-completion/completions/
# pp-record and pp-analyze. Profilers, commands and options are read from the
# tools themselves (`pp-analyze list`, `pp-analyze PROFILER help`,
# `pp-record --help`), so what completes is what the installed binaries take;
# event names come from tracefs. Works with or without the bash-completion
# package.

# The long and short options a help text names (-x, --name, --name=).
_pp_options_of()
{
	grep -oE '(^|[[:space:](,|])--?[a-zA-Z][a-zA-Z0-9_-]*=?' |
		sed 's/^[^-]*//' | sort -u
}

# Profiler and command names of `pp-analyze list`.
_pp_profilers()
{
	local analyze=${1:-pp-analyze}
	"$analyze" list 2>/dev/null | sed -n 's/^  \([a-z][a-z0-9-]*\) .*/\1/p'
}

# Tracepoints (sys:name), the named software events and probe prefixes.
_pp_events()
{
	local tracefs
	for tracefs in /sys/kernel/tracing /sys/kernel/debug/tracing; do
		if [ -r "$tracefs/available_events" ]; then
			cat "$tracefs/available_events"
			break
		fi
	done
	printf '%s\n' cpu-clock task-clock page-faults context-switches cpu-migrations \
		cycles instructions cache-misses branch-misses uprobe: uretprobe: kprobe: mem:
}

# COMPREPLY from the words of $1 matching $cur; an event list completes after
# its last comma.
_pp_reply()
{
	local words=$1 cur=$2 prefix=
	case "$cur" in
	*,*) prefix=${cur%,*},; cur=${cur##*,} ;;
	esac
	local IFS=$'\n'
	COMPREPLY=($(compgen -P "$prefix" -W "$words" -- "$cur"))
	case "${COMPREPLY[0]:-}" in *= | *:) compopt -o nospace 2>/dev/null ;; esac
}

_pp_files()
{
	local IFS=$'\n'
	compopt -o filenames 2>/dev/null
	COMPREPLY=($(compgen -f -- "$1"))
}

_pp_record()
{
	local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD - 1]}
	local i analyze=${COMP_WORDS[0]%pp-record}pp-analyze
	[ "$analyze" = pp-analyze ] || [ -x "$analyze" ] || analyze=pp-analyze
	for ((i = 1; i < COMP_CWORD; i++)); do
		if [ "${COMP_WORDS[i]}" = -- ]; then	# the COMMAND and its arguments
			if declare -F _command_offset >/dev/null; then
				_command_offset $((i + 1))
			elif [ $((i + 1)) -eq "$COMP_CWORD" ]; then
				local IFS=$'\n'
				COMPREPLY=($(compgen -c -- "$cur"))
			else
				_pp_files "$cur"
			fi
			return
		fi
	done
	case "$prev" in
	-e | --event) _pp_reply "$(_pp_events)" "$cur"; return ;;
	-o | --output | --bpf-output) _pp_files "$cur"; return ;;
	--codec) _pp_reply $'lz4\nzstd\nnone' "$cur"; return ;;
	--encoding) _pp_reply $'cached\nplain' "$cur"; return ;;
	-p | --pid)
		local IFS=$'\n'
		COMPREPLY=($(compgen -W "$(ls /proc | grep -E '^[0-9]+$')" -- "$cur"))
		return ;;
	-d | --duration | -F | --freq | -m | --mmap-pages | --chunk-size | --queue | \
	--flush-interval | --compression-level | -r | --realtime | -C | --cpu | \
	-t | --tid | --cgroups)
		return ;;
	esac
	if [[ $cur == -* ]]; then
		_pp_reply "$("${COMP_WORDS[0]}" --help 2>/dev/null | _pp_options_of)" "$cur"
	else
		_pp_reply "$(_pp_profilers "$analyze")" "$cur"
	fi
}

_pp_analyze()
{
	local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD - 1]}
	local analyze=${COMP_WORDS[0]}
	if [ "$COMP_CWORD" -eq 1 ]; then
		_pp_reply "$(_pp_profilers "$analyze")"$'\nlist\nhelp' "$cur"
		return
	fi
	local profiler=${COMP_WORDS[1]}
	case "$profiler" in
	info) [[ "$cur" == -* ]] && { _pp_reply "--json"$'\n'"--help" "$cur"; return; }; _pp_files "$cur"; return ;;
	dump) _pp_files "$cur"; return ;;
	list | help) return ;;
	esac
	case "$prev" in
	-e) _pp_reply "$(_pp_events)" "$cur"; return ;;
	-o | --input | --flame-graph | --heatmap) _pp_files "$cur"; return ;;
	-i | -F | --than | -C | -p | -t | -N | -d | --percent-limit | --bucket | --period)
		return ;;
	esac
	if [[ $cur == -* ]]; then
		_pp_reply "$("$analyze" "$profiler" help 2>/dev/null | _pp_options_of)" "$cur"
	elif [ "$COMP_CWORD" -eq 2 ]; then
		_pp_reply "help"$'\n'"$(compgen -f -- "$cur")" "$cur"
		compopt -o filenames 2>/dev/null
	else
		_pp_files "$cur"
	fi
}

complete -F _pp_record pp-record
complete -F _pp_analyze pp-analyze
