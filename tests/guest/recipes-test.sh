#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The recipes of docs/recipes.md and the README's first steps and
# workflow, run as written: each console block between <!-- recipe NAME:begin --> and
# <!-- recipe NAME:end --> is run in a bash
# of its own, in a fresh copy of docs/recipes/ (the files the recipes use),
# on a system set up as a distribution sets it up (systemd-udevd with the
# packages' udev rules, configfs mounted, the loopback interface up, the
# static device nodes of modules made, ttypairctl in PATH, `sudo` as root
# is). A line "$ command" is a command, following lines "> ..." continue
# it (a here-document), every other line is what it printed, compared by
# transcript.py ("…" stands for what differs from run to run). A recipe
# must end what it started: a process of it still running afterwards is a
# failure. Each transcript is printed as "RECIPE NAME| " lines.
# Sourced by guest-tests.sh after manage-tests.sh (its mgmt_* helpers);
# leaves the module unloaded.
T=${T:-/opt/ttypair-tests}

# rc_block NAME FILE: the console block of recipe NAME, without the fences
rc_block() {
	sed -n "/^<!-- recipe $1:begin -->\$/,/^<!-- recipe $1:end -->\$/p" "$2" |
		sed -e '1d' -e '$d' | sed -e '/^```/d'
}

# rc_run BLOCK OUT: run the commands of BLOCK in this shell (bash), the
# transcript into OUT
rc_run() {
	: > "$2"
	_cmd= _more=
	while IFS= read -r _line; do
		case $_line in
		'$ '*)
			rc_flush "$2"
			printf '%s\n' "$_line" >> "$2"
			_cmd=${_line#\$ } _more=1
			;;
		'>' | '> '*)
			if [ -n "$_more" ]; then
				printf '%s\n' "$_line" >> "$2"
				_rest=${_line#>}
				_cmd="$_cmd
${_rest# }"
			fi
			;;
		*)
			rc_flush "$2"
			;;
		esac
	done < "$1"
	rc_flush "$2"
}
rc_flush() {
	_more=
	[ -n "$_cmd" ] || return 0
	eval "$_cmd" >> "$1" 2>&1 < /dev/null
	_cmd=
}

# Run on its own (RC_RUN_ONLY=1 bash recipes-test.sh BLOCK OUT): only
# rc_run, so that t_recipe can bound the whole recipe with timeout
if [ -n "${RC_RUN_ONLY:-}" ]; then
	rc_run "$1" "$2"
	exit
fi

# The most one recipe may take (podman's first start is the slowest part)
RC_LIMIT=240
# The recipes' sudo and ttypairctl, and the directory a recipe runs in: on
# the root disk, since Debian's initramfs mounts /run noexec
RC_BIN=$T/recipe-bin

# What a distribution's boot has done before anyone follows a recipe
rc_setup() {
	mgmt_reset
	mgmt_udevd_start || return 1
	modprobe configfs 2>/dev/null
	mountpoint -q /sys/kernel/config || mount -t configfs configfs /sys/kernel/config || return 1
	mkdir -p "$RC_BIN"
	ln -sf "$T/ttypairctl" "$RC_BIN/ttypairctl"
	# sudo as root (the guest runs as root; sudo -u USER as runuser does)
	cat > "$RC_BIN/sudo" <<'EOS'
#!/bin/sh
if [ "$1" = -u ]; then
	u=$2
	shift 2
	exec runuser -u "$u" -- "$@"
fi
exec "$@"
EOS
	chmod 755 "$RC_BIN/sudo"
	# the lock directory (pppd's), made by systemd-tmpfiles at boot, and
	# what systemd mounts: /dev/shm (podman keeps its locks there) and the
	# cgroup2 hierarchy (podman 4 puts its containers in it)
	mkdir -p /run/lock /dev/shm
	mountpoint -q /dev/shm || mount -t tmpfs -o nosuid,nodev tmpfs /dev/shm
	if [ -d /sys/fs/cgroup ] && ! mountpoint -q /sys/fs/cgroup; then
		mount -t cgroup2 cgroup2 /sys/fs/cgroup 2>/dev/null
	fi
	ip link set lo up 2>/dev/null
	# a network interface besides the loopback, as every machine has (the
	# guest has no network card): without one, getaddrinfo() with
	# AI_ADDRCONFIG, as ser2net calls it, finds no address at all
	if [ -e /proc/net/dev ] && ! ip link show eth0 > /dev/null 2>&1; then
		ip link add eth0 type dummy 2>/dev/null &&
			ip addr add 192.0.2.1/24 dev eth0 && ip link set eth0 up
	fi
	grep -qw localhost /etc/hosts 2>/dev/null || echo '127.0.0.1 localhost' >> /etc/hosts
	# the static device nodes systemd-tmpfiles makes at boot (/dev/ppp):
	# opening one loads its module
	kmod static-nodes --format=tmpfiles 2>/dev/null |
		while read -r _type _node _mode _u _g _a _dev; do
			case $_type in
			c*) [ -e "$_node" ] || { mkdir -p "${_node%/*}"; mknod -m "$_mode" "$_node" c "${_dev%:*}" "${_dev#*:}"; } ;;
			esac
		done
	return 0
}

rc_teardown() {
	mgmt_reset
	mgmt_udevd_stop
	rm -rf "$RC_BIN"
}

# rc_needs WHAT...: return $TAP_SKIP with the reason if this kernel lacks
# something a recipe needs (the debug kernel is built without networking)
rc_needs() {
	for _w in "$@"; do
		case $_w in
		inet)
			[ -e /proc/net/tcp ] ||
				{ echo "this kernel has no TCP/IP (CONFIG_INET)"; return $TAP_SKIP; } ;;
		netns)
			unshare --net true 2>/dev/null ||
				{ echo "this kernel has no network namespaces"; return $TAP_SKIP; } ;;
		ppp)
			{ modprobe -q ppp_async 2>/dev/null || grep -q ppp /proc/devices; } ||
				{ echo "this kernel has no PPP"; return $TAP_SKIP; } ;;
		containers)
			unshare --mount --uts --ipc --net --pid --fork true 2>/dev/null ||
				{ echo "this kernel lacks the namespaces containers need"; return $TAP_SKIP; }
			# Debian 11's podman 3.0 with its crun 0.17 and runc 1.0-rc93
			# fails to start any container in the test guests ("Failed to
			# re-execute libcrun via memory file descriptor", "read
			# init-p: connection reset by peer"), ttypair or not
			_pv=$(podman --version 2>/dev/null | sed -n 's/^podman version \([0-9]*\)\..*/\1/p')
			[ "${_pv:-0}" -ge 4 ] ||
				{ echo "podman ${_pv:-?}.x of this suite cannot start containers in the test guest; the recipe runs with podman 4 and newer"; return $TAP_SKIP; } ;;
		esac
	done
}

# t_recipe DOC NAME NEEDS...: run recipe NAME of DOC (README.md or
# docs/recipes.md)
t_recipe() {
	_doc=$1 _name=$2
	shift 2
	rc_needs "$@" || return $?
	rc_block "$_name" "$T/$_doc" > "/run/recipe-$_name.block"
	grep -q '^\$ ' "/run/recipe-$_name.block" || { echo "$_doc has no recipe $_name"; return 1; }
	rc_setup || return 1
	_t0=$(date +%s)
	_dir=/tmp/recipe-$_name
	rm -rf "$_dir"
	cp -a "$T/docs/recipes" "$_dir"
	# a session of its own: what the recipe leaves running is found by it
	(cd "$_dir" && PATH=$RC_BIN:/usr/local/bin:$PATH HOME=/root RC_RUN_ONLY=1 \
		setsid sh -c 'echo $$ > /run/recipe.sid; exec timeout -k 5 '$RC_LIMIT' bash "$1" "$2" "$3"' \
		sh "$T/recipes-test.sh" "/run/recipe-$_name.block" "/run/recipe-$_name.out")
	_rc=$?
	_left=$(pgrep -s "$(cat /run/recipe.sid)" -l | tr '\n' ' ')
	[ -z "$_left" ] || pkill -KILL -s "$(cat /run/recipe.sid)"
	rc_teardown
	_busy=
	[ ! -d /sys/module/ttypair ] || { _busy=1; rmmod ttypair 2>/dev/null; }
	cat "/run/recipe-$_name.out"
	case $_rc in
	124 | 137)
		echo "recipe $_name did not finish within $RC_LIMIT s: stopped in '$(sed -n 's/^\$ //p' "/run/recipe-$_name.out" | tail -n 1)'"
		return 1
		;;
	esac
	python3 "$T/transcript.py" "/run/recipe-$_name.block" "/run/recipe-$_name.out" ||
		{ echo "recipe $_name prints something else now than $_doc shows"; return 1; }
	[ -z "$_left" ] || { echo "recipe $_name left processes running: $_left"; return 1; }
	[ -z "$_busy" ] || { echo "recipe $_name left a port open: the module could not be unloaded after it"; return 1; }
	echo "recipe $_name: $(grep -c '^\$ ' "/run/recipe-$_name.block") commands, their output as in $_doc ($(( $(date +%s) - _t0 )) s)"
}

step readme_first_use t_recipe README.md readme_first_use
step readme_workflow t_recipe README.md readme_workflow
step readme_bus t_recipe README.md readme_bus
step readme_session t_recipe README.md readme_session
step recipe_modbus_rtu t_recipe docs/recipes.md modbus_rtu
step recipe_ppp_link t_recipe docs/recipes.md ppp_link netns ppp
step recipe_getty_login t_recipe docs/recipes.md getty_login
step recipe_rfc2217_ser2net t_recipe docs/recipes.md rfc2217_ser2net inet
step recipe_gps_gpsd t_recipe docs/recipes.md gps_gpsd inet
step recipe_container_device t_recipe docs/recipes.md container_device containers
for _f in /run/recipe-*.out; do
	[ -f "$_f" ] || continue
	_n=${_f#/run/recipe-}
	sed "s/^/RECIPE ${_n%.out}| /" "$_f"
done
