#!/bin/sh
# What Lustre's lnet.service and lnetd-lustre.service run against lnetd
# (lnetd(8), LUSTRE): `lnetctl lnet configure` waits until lnetd's engine
# holds the configuration, and fails naming what is pending when it does not
# in time; `lnet unconfigure` is refused, changing nothing; `import
# --if-empty FILE` imports only into a configuration never changed, says
# which, records FILE in the history, and a second start of lnetd does not
# import again.  TAP.
set -u
. "$(dirname "$0")/lib.sh"

# Without polkit on a private bus, lnetd takes changes from root only.
if [ "$(id -u)" != 0 ]; then
	echo "1..0 # SKIP needs root"
	exit 0
fi
LNETD=${LNETD:-lnetd/lnetd}
LNETCTL=${LNETCTL:-lnetctl/lnetctl}

# lc ARGS...: lnetctl, its output in $OUT and its exit code in $RC
lc() {
	OUT=$("$LNETCTL" "$@" 2>&1)
	RC=$?
}
gen() {
	bprop Generation
	echo "${OUT#t }"
}
# export_to FILE: the configuration and generation, to compare before and after
export_to() {
	{
		gen
		"$LNETCTL" export
	} >"$1" 2>&1
}

cat >"$T/lnet.conf" <<'EOF'
net:
    - net type: tcp
      local NI(s):
        - interfaces:
              0: lo
peer:
    - primary nid: 10.9.0.1@tcp
      Multi-Rail: True
      peer ni:
        - nid: 10.9.0.1@tcp
EOF
cat >"$T/other.conf" <<'EOF'
peer:
    - primary nid: 10.9.9.9@tcp
      Multi-Rail: True
      peer ni:
        - nid: 10.9.9.9@tcp
EOF

start_bus

# --- nothing to talk to ---------------------------------------------------------
LNETD_PRIVATE_SOCKET=$T/nothing-here
export LNETD_PRIVATE_SOCKET
lc lnet configure --timeout 1
check "lnet configure without lnetd: exit 3" test "$RC" = 3
check "... saying lnetd is not running" has "lnetd is not running"

# --- the userspace engine: applied at once ----------------------------------------
start_lnetd || { not_ok "lnetd starts"; finish; }
lc lnet configure
check "lnet configure: exit 0 with the userspace engine" test "$RC" = 0
check "... and prints nothing" test -z "$OUT"
lc lnet configure --all --large --timeout 0
check "lnet configure --all --large --timeout 0: exit 0" test "$RC" = 0
lc lnet configure -a -l
check "lnet configure -a -l: exit 0" test "$RC" = 0
lc lnet configure --timeout soon
check "lnet configure --timeout soon: a usage error" test "$RC" = 2
check "... naming --timeout" has "--timeout: 'soon' is not a number"
lc lnet configure extra
check "lnet configure with an argument: a usage error" test "$RC" = 2
check "nothing configured yet: generation 0" test "$(gen)" = 0

# --- import --if-empty ----------------------------------------------------------------
lc import --if-empty --del "$T/lnet.conf"
check "import --if-empty --del: a usage error" test "$RC" = 2
check "... saying why" has "--if-empty adds"
lc import --if-empty --replace "$T/lnet.conf"
check "import --if-empty --replace: a usage error" test "$RC" = 2
lc import --if-empty --dry-run "$T/lnet.conf"
check "import --if-empty --dry-run on an empty store: exit 0" test "$RC" = 0
check "... lists what it would add" has "+peer 10.9.0.1@tcp"
check "... and changes nothing" test "$(gen)" = 0
lc import --if-empty "$T/lnet.conf"
check "import --if-empty into an empty store: exit 0" test "$RC" = 0
check "... says it imported the file" has "imported: $T/lnet.conf"
check "... as generation 1" test "$(gen)" = 1
lc peer show
check "... the file's peer is there" has "10.9.0.1@tcp"
lc history --limit 1
check "the history's entry names the file" has "import --if-empty $T/lnet.conf"
export_to "$T/before"
lc import --if-empty "$T/other.conf"
check "import --if-empty into a configured store: exit 0" test "$RC" = 0
check "... says it did not import" has "not imported: $T/other.conf"
check "... and why" has "not empty (generation 1)"
export_to "$T/after"
check "... and changes nothing" cmp -s "$T/before" "$T/after"
lc import --if-empty --dry-run "$T/other.conf"
check "the same as a dry run: not imported" has "not imported:"

# An admin empties the configuration: it is not empty in --if-empty's sense,
# so a file imported at the first start does not come back.
lc import --del "$T/lnet.conf"
check "the file's objects deleted" test "$RC" = 0
lc peer show
check "... no peer left" sh -c 'case "$1" in *10.9.0.1@tcp*) exit 1 ;; esac' - "$OUT"
lc import --if-empty "$T/lnet.conf"
check "import --if-empty after the admin emptied it: not imported" has "not imported:"
lc peer show
check "... the peer stays deleted" sh -c 'case "$1" in *10.9.0.1@tcp*) exit 1 ;; esac' - "$OUT"

# A second start of lnetd (lnetd-lustre.service's ExecStartPost again).
lc import "$T/lnet.conf"
export_to "$T/before"
stop_lnetd
start_lnetd || { not_ok "lnetd starts again"; finish; }
lc import --if-empty "$T/other.conf"
check "second start: import --if-empty does not import" has "not imported:"
export_to "$T/after"
check "... and the configuration is the first start's" cmp -s "$T/before" "$T/after"

# --- unconfigure: refused, changing nothing -------------------------------------------
lc lnet unconfigure
check "lnet unconfigure: refused (exit 1)" test "$RC" = 1
check "... saying lnetd does not take LNet down" has "does not take it down"
check "... and naming Lustre's own lnetctl" has "lnetctl.lustre lnet unconfigure"
lc lnet unconfigure --all
check "lnet unconfigure --all: refused the same" test "$RC" = 1
export_to "$T/after"
check "... nothing changed" cmp -s "$T/before" "$T/after"
stop_lnetd

# --- the kernel engine without lnetk: pending, configure times out -------------------
if [ -d /sys/module/lnetk ] || modinfo lnetk >/dev/null 2>&1; then
	ok "# SKIP the lnetk module is here: the pending case needs a host without it"
else
	start_lnetd --engine=kernel || { not_ok "lnetd starts with the kernel engine"; finish; }
	lc lnet configure --timeout 1
	check "kernel engine without lnetk: lnet configure fails (exit 1)" test "$RC" = 1
	check "... naming the pending engine" has "LNet is not configured after 1 s"
	check "... and why it is pending" has "the lnetk module is not loaded"
	lc lnet configure --timeout 0
	check "--timeout 0 asks once: the same failure" has "the lnetk module is not loaded"
	stop_lnetd
fi
finish
