#!/bin/bash
# completion.sh COMPLETION HWPROF - the bash completion (scripts/hwprof.bash-completion)
# completes subcommands, options and -e event names from hwprof's own --help and list.
set -u
. "$1"
hwprof=$2 fails=0
expect() {
	local want=$1
	shift
	COMP_WORDS=("$hwprof" "$@")
	COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
	COMPREPLY=()
	_hwprof
	if [ "${COMPREPLY[*]}" = "$want" ]; then
		echo "ok   $* -> $want"
	else
		echo "FAIL $* -> '${COMPREPLY[*]}', want '$want'"
		fails=$((fails + 1))
	fi
}
expect "record report" re
expect "--call-graph" record --call
expect "page-faults" record -e page-f
expect "cpu-clock,task-clock" stat -e cpu-clock,task
expect "{cpu-clock,task-clock" stat -e '{cpu-clock,task'
expect "--inverted" report --inv
echo "$fails failures"
[ "$fails" -eq 0 ]
