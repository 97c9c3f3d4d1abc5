#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The README's workflow, run as written: the commands of the console block
# between <!-- workflow:begin --> and <!-- workflow:end --> in README.md
# (lines "$ command", `sudo ` dropped: the guest runs as root) are run one
# after the other in one shell, on a system set up as a distribution sets
# it up (systemd-udevd with the packages' udev rules, configfs mounted,
# ttypairctl in PATH), and what they print must be the README's output lines.
# The transcript is printed as "WORKFLOW| " lines for `make readme-matrix`.
# Sourced by guest-tests.sh after manage-tests.sh (its mgmt_* helpers);
# leaves the module unloaded.
T=${T:-/opt/ttypair-tests}

# wf_block FILE: the workflow block of README.md, without the fences
wf_block() {
	sed -n '/^<!-- workflow:begin -->$/,/^<!-- workflow:end -->$/p' "$1" |
		sed -e '1d' -e '$d' | sed -e '/^```/d'
}

# wf_run BLOCK OUT: run the commands of BLOCK, the transcript into OUT
wf_run() {
	: > "$2"
	while IFS= read -r _line; do
		case $_line in
		'$ '*)
			printf '%s\n' "$_line" >> "$2"
			_cmd=${_line#\$ }
			_cmd=${_cmd#sudo }
			eval "$_cmd" >> "$2" 2>&1 < /dev/null
			;;
		esac
	done < "$1"
}

# Run on its own (WF_RUN_ONLY=1 sh workflow-test.sh BLOCK OUT): only
# wf_run, so that t_readme_workflow can bound the whole block with timeout.
# The block's commands wait (an `until` loop, `wait` for the device
# program): timeout stops them with everything they started, and the
# transcript's last command is the one that hung.
if [ -n "${WF_RUN_ONLY:-}" ]; then
	wf_run "$1" "$2"
	exit
fi

# The most the README's workflow may take (it takes seconds)
WF_LIMIT=180

t_readme_workflow() {
	mgmt_reset
	mgmt_udevd_start || return 1
	mkdir -p /usr/local/bin
	ln -sf "$T/ttypairctl" /usr/local/bin/ttypairctl
	modprobe configfs 2>/dev/null
	mountpoint -q /sys/kernel/config || mount -t configfs configfs /sys/kernel/config || return 1

	wf_block "$T/README.md" > /run/wf.block
	grep -q '^\$ ' /run/wf.block || { echo "README.md has no workflow block"; return 1; }
	(cd /run && PATH=/usr/local/bin:$PATH WF_RUN_ONLY=1 \
		timeout -k 5 $WF_LIMIT sh "$T/workflow-test.sh" /run/wf.block /run/wf.out)
	rc=$?

	mgmt_reset
	mgmt_udevd_stop
	rm -f /usr/local/bin/ttypairctl
	case $rc in
	124 | 137)
		cat /run/wf.out
		echo "the README's workflow did not finish within $WF_LIMIT s: stopped in '$(sed -n 's/^\$ //p' /run/wf.out | tail -n 1)'"
		return 1
		;;
	esac
	diff -u /run/wf.block /run/wf.out > /run/wf.diff ||
		{ cat /run/wf.diff; echo "the README's workflow prints something else now (make readme-matrix copies this run's)"; return 1; }
	echo "README workflow: $(grep -c '^\$ ' /run/wf.block) commands, their output as in README.md"
}
step readme_workflow t_readme_workflow
[ ! -f /run/wf.out ] || sed 's/^/WORKFLOW| /' /run/wf.out
