# shellcheck shell=sh
# Capabilities and address families as a systemd unit gives them, for the
# tests that run lnetd under a unit's own sandbox without systemd
# (tests/integration/units.sh on the host, tests/vm/caps.sh in the VM
# guest).  Sourced; POSIX sh and busybox sh, awk and sed only.
#
# A root service with CapabilityBoundingSet= and no AmbientCapabilities=
# runs with that set as its bounding, permitted and effective sets, an
# empty inheritable and ambient set, and (NoNewPrivileges=yes) no_new_privs.
# setpriv gives exactly that to a program started by root:
#   setpriv --bounding-set=-all,+CAP... --inh-caps=-all --no-new-privs PROG
# exec as uid 0 makes permitted = inheritable | bounding (a root exec
# counts every file capability as set), effective = permitted; so with
# the inheritable set emptied both are the bounding set, and no ambient
# set is needed (--ambient-caps would show in CapAmb and CapInh, which a
# unit's process does not have).

# The kernel's capability numbers (linux/capability.h, the ABI).
CAPS_TABLE='chown dac_override dac_read_search fowner fsetid kill setgid setuid setpcap
linux_immutable net_bind_service net_broadcast net_admin net_raw ipc_lock ipc_owner
sys_module sys_rawio sys_chroot sys_ptrace sys_pacct sys_admin sys_boot sys_nice
sys_resource sys_time sys_tty_config mknod lease audit_write audit_control setfcap
mac_override mac_admin syslog wake_alarm block_suspend audit_read perfmon bpf
checkpoint_restore'

# unit_set KEY FILE: the set a list setting (CapabilityBoundingSet=,
# RestrictAddressFamilies=) of unit FILE gives, one word a line, sorted, as
# systemd reads it: the lines add up, an empty assignment starts again.  An
# inverted list (~...) is not a set this can check: "~" alone and status 1.
unit_set() {
	awk -v key="$1" '
		index($0, key "=") == 1 {
			v = substr($0, length(key) + 2)
			if (v ~ /^~/) { inv = 1 }
			if (v == "") { split("", s); next }
			n = split(v, w, /[ \t]+/)
			for (i = 1; i <= n; i++) if (w[i] != "") s[w[i]] = 1
		}
		END {
			if (inv) { print "~"; exit 1 }
			for (k in s) print k
		}' "$2" | sort
}

# cap_number NAME: the number of CAP_NAME (or name); status 1 if unknown.
cap_number() {
	echo "$CAPS_TABLE" | tr ' ' '\n' |
		awk -v c="$(echo "$1" | tr 'A-Z' 'a-z' | sed 's/^cap_//')" \
			'$1 != "" { if ($1 == c) { print i; f = 1; exit } i++ } END { exit !f }'
}

# cap_mask NAME...: the set as /proc/PID/status prints it (16 hex digits).
cap_mask() {
	_m=0
	for _c in "$@"; do
		_b=$(cap_number "$_c") || return 1
		_m=$((_m | (1 << _b)))
	done
	printf '%016x\n' "$_m"
}

# cap_setpriv NAME...: setpriv's list for --bounding-set: -all,+name...
cap_setpriv() {
	_l=-all
	for _c in "$@"; do
		cap_number "$_c" >/dev/null || return 1
		_l="$_l,+$(echo "$_c" | tr 'A-Z' 'a-z' | sed 's/^cap_//')"
	done
	echo "$_l"
}

# proc_status PID FIELD: FIELD's value in /proc/PID/status (CapEff, NoNewPrivs...)
proc_status() {
	awk -v f="$2:" '$1 == f { print $2 }' "/proc/$1/status"
}

# caps_are PID NAME...: PID runs exactly as a unit with CapabilityBoundingSet=NAME...
# would (see above); what differs on stderr.
caps_are() {
	_pid=$1
	shift
	_want=$(cap_mask "$@") || {
		echo "unknown capability among: $*" >&2
		return 1
	}
	_bad=0
	for _f in CapEff CapPrm CapBnd; do
		_got=$(proc_status "$_pid" $_f)
		[ "$_got" = "$_want" ] || {
			echo "$_f is $_got, the unit's set is $_want ($*)" >&2
			_bad=1
		}
	done
	for _f in CapInh CapAmb; do
		_got=$(proc_status "$_pid" $_f)
		[ "$_got" = 0000000000000000 ] || {
			echo "$_f is $_got, not empty" >&2
			_bad=1
		}
	done
	_got=$(proc_status "$_pid" NoNewPrivs)
	[ "$_got" = 1 ] || {
		echo "NoNewPrivs is $_got" >&2
		_bad=1
	}
	return $_bad
}

# socket_families PID: the address family of every socket PID holds open,
# sorted, one a line (AF_UNIX, AF_NETLINK, AF_INET, AF_INET6, AF_PACKET;
# "unknown" for one found in none of the process's /proc/PID/net tables).
socket_families() {
	for _fd in /proc/"$1"/fd/*; do
		_l=$(readlink "$_fd" 2>/dev/null) || continue
		case $_l in socket:\[*\]) echo "${_l#socket:}" | tr -d '[]' ;; esac
	done | awk -v net="/proc/$1/net" '
		BEGIN {
			# the file, the column with the inode, the family
			t["unix"] = 7; f["unix"] = "AF_UNIX"
			t["netlink"] = 10; f["netlink"] = "AF_NETLINK"
			t["tcp"] = 10; f["tcp"] = "AF_INET"
			t["udp"] = 10; f["udp"] = "AF_INET"
			t["raw"] = 10; f["raw"] = "AF_INET"
			t["tcp6"] = 10; f["tcp6"] = "AF_INET6"
			t["udp6"] = 10; f["udp6"] = "AF_INET6"
			t["raw6"] = 10; f["raw6"] = "AF_INET6"
			t["packet"] = 9; f["packet"] = "AF_PACKET"
			for (k in t) {
				file = net "/" k
				while ((getline line < file) > 0) {
					split(line, w, /[ \t]+/)
					# a leading blank makes an empty first field
					c = (line ~ /^[ \t]/) ? t[k] + 1 : t[k]
					fam[w[c]] = f[k]
				}
				close(file)
			}
		}
		{ print (($1 in fam) ? fam[$1] : "unknown") }' | sort -u
}
