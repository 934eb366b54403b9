# SPDX-License-Identifier: GPL-2.0
# tests/vm/lustre-fs/guest-lnetd.sh - the TBF rules of the OSS's ost_io
# set as an admin sets them: `lnetctl tbf ...` (lnetd's CLI, D-Bus, its
# store, the lustre engine's TBF side, Lustre's debugfs files), asserted in
# Lustre's own nrs_policies / nrs_tbf_rule readout and by the client's
# traffic; drift with lctl put back by lnetd, lnetd restarted, a refusal
# that changes nothing, the policy deleted, the OST remounted.
# Run by init after guest-tbf.sh (which leaves OST0001 mounted, ost_io on
# fifo and lnetd holding no TBF policy); lnetd --engine=lustre has run
# since configure_lnet.  One TAP line per case; exit status: the failed
# ones.  Waits are for states that must come, bounded far beyond a TCG
# guest's slowest (lnetd's drift check runs every 10 s); the traffic's
# verdict is a token bucket's lower bound on the time N requests take,
# which load only moves further from.
. /lib/lustre-fs/fixture.sh
P=ost.OSS.ost_io
F=/mnt/lustre/lnetd-tbf
fails=0

# on a failed check, lnetd's last words too (fixture.sh's tap)
tap_on_fail() { tail -n 10 "$LNETD_LOG" | sed 's/^/# lnetd: /'; }

rules() { lctl get_param -n "$P.nrs_tbf_rule" 2>/dev/null; }
policies() { lctl get_param -n "$P.nrs_policies" 2>/dev/null; }

# listed NAME CONDS RATE: every CPT of both queues lists "NAME CONDS RATE, ref"
listed() {
	rules | awk -v line="$1 $2 $3, ref" '
		/^regular_requests:/ { q = "reg"; next }
		/^high_priority_requests:/ { q = "hp"; next }
		/^CPT / { cpts[q]++; next }
		index($0, line) == 1 { hits[q]++ }
		END {
			for (q in cpts) n++
			if (n != 2) { print "not both queues listed"; exit 1 }
			for (q in cpts)
				if (hits[q] != cpts[q]) {
					printf "%s: %d of %d CPTs list \"%s\"\n", q, hits[q], cpts[q], line
					bad = 1
				}
			exit bad
		}' || {
		rules
		return 1
	}
}
unlisted() { ! rules | grep -q "^$1 "; }

# started TYPE: both queues' started primary policy is TEXT ("tbf nid", "fifo").
started() {
	policies | awk -v want="$1" '
		/^regular_requests:/ { q = "reg" }
		/^high_priority_requests:/ { q = "hp" }
		/^ *- name: / { name = $0; sub(/^ *- name: /, "", name) }
		/state: started/ { if (name != "fifo") primary[q] = name; else if (!(q in primary)) primary[q] = "fifo" }
		END { exit !(primary["reg"] == want && primary["hp"] == want) }' || {
		policies | grep -B1 'state: started'
		return 1
	}
}

# cs: the uptime in centiseconds.
cs() { awk '{ printf "%d", $1 * 100 }' /proc/uptime; }

# writes N: N 4 KiB O_DIRECT writes to $F (one ost_write RPC each); sets
# rpcs (ost_io's count of them) and took (centiseconds).
writes() {
	_w0=$(ost_writes)
	_t0=$(cs)
	dd if=/dev/zero of=$F bs=4k count="$1" oflag=direct conv=notrunc 2>/dev/null || return 1
	took=$(($(cs) - _t0))
	rpcs=$(($(ost_writes) - _w0))
}

# slower_than_rule N RATE: N 4 KiB O_DIRECT writes take at least what a
# bucket of RATE a second in each of ncpt CPTs, depth 3, lets through:
# (N - 3 ncpt) / (RATE ncpt) seconds.  Prints the figure.
slower_than_rule() {
	writes "$1" || return 1
	awk -v n="$1" -v rpcs="$rpcs" -v c="$took" -v r="$2" -v k="$ncpt" 'BEGIN {
		min = (n - 3 * k) / (r * k)
		printf "# %d writes, %d ost_write RPCs, in %.2f s (a rule of %d/s in %d CPTs needs %.2f s at least): %.1f RPC/s\n",
			n, rpcs, c / 100, r, k, min, (c > 0 ? rpcs * 100 / c : 0)
		exit !(rpcs >= n && c / 100 >= min)
	}'
}

# --- the client writes to OST0001 (OST0000 went in guest-tbf.sh) ----------
# OST0000 is set inactive on the client and the MDT, so that nothing waits
# for it (a sync of every file did, for minutes, under load); the file is
# made and synced alone, in the background, waited for at most 300 s.
lctl set_param osc.lustre-OST0000-osc-[!M]*.active=0 osp.lustre-OST0000-osc-MDT0000.active=0 >/dev/null 2>&1
prepare() {
	until lfs setstripe -c 1 -i 1 $F 2>/dev/null; do sleep 0.5; done
	dd if=/dev/zero of=$F bs=4k count=64 conv=fsync 2>/dev/null
}
c_prepare() {
	prepare &
	_p=$!
	_end=$(($(now_ms) + 300000))
	while kill -0 $_p 2>/dev/null; do
		[ "$(now_ms)" -lt "$_end" ] || {
			kill -9 $_p
			echo "not made within 300 s"
			return 1
		}
		sleep 0.2
	done
	wait $_p
}
tap "a file on OST0001 for the client's writes" c_prepare

writes 20 && echo "# no rule (fifo): 20 writes, $rpcs ost_write RPCs, in $(awk -v c="$took" 'BEGIN { printf "%.2f", c / 100 }') s"

# --- a nid rule, through lnetctl --------------------------------------------
# lnetd writes a nid rule's rate undivided (a remote client's requests reach
# one CPT); this client is on the server's node, over 0@lo, whose requests
# reach every CPT: the bound counts all of them.
CLI='start cli nid={0@lo} rate=4'
tap "lnetctl tbf rule --service ost_io '$CLI' (lnetd stores it)" lnetctl tbf rule --service ost_io "$CLI"
c_show() { lnetctl tbf show --service ost_io | grep -q 'start cli nid={0@lo} rate=4'; }
tap "lnetctl tbf show lists the rule" c_show
c_on() { wait_for 60 started "tbf nid" && wait_for 60 listed cli 'nid={0@lo}' 4; }
tap "Lustre's ost_io runs tbf nid and lists the rule at 4 in every CPT of both queues" c_on
tap "lnetd says everything is applied" lnetd_applied
ncpt=$(rules | awk '/^regular_requests:/ { r = 1; next } /^high_priority_requests:/ { r = 0 } r && /^CPT / { n++ } END { print n + 0 }')
[ "$ncpt" -ge 1 ] || ncpt=1
echo "# ost_io has $ncpt CPU partitions"
tap "the client's 20 writes are held to the rule: no faster than 4/s per CPT allows" slower_than_rule 20 4

# --- drift behind lnetd's back, put back by lnetd --------------------------
lctl set_param "$P.nrs_tbf_rule=change cli rate=500" >/dev/null
c_drift() {
	wait_for 60 grep -q 'rule cli rate is 500' "$LNETD_LOG" && wait_for 60 listed cli 'nid={0@lo}' 4
}
tap "a rate changed with lctl is logged by lnetd and put back, with no admin action" c_drift

# --- lnetd restarted: drift while it was away is put back at its start ------
tap "lnetd stops" lnetd_stop
lctl set_param "$P.nrs_policies=fifo" >/dev/null
tap "while lnetd is away, lctl sets ost_io back to fifo" started fifo
tap "lnetd starts again" lnetd_start
c_restart() { wait_for 60 started "tbf nid" && wait_for 60 listed cli 'nid={0@lo}' 4; }
tap "lnetd's start applies its stored rule again" c_restart
tap "and the client's writes are held to it again" slower_than_rule 20 4

# --- an opcode rule: lnetd divides the rate among the CPTs -----------------
c_opcode() {
	lnetctl tbf rule stop --service ost_io cli &&
		lnetctl tbf policy set --service ost_io --type opcode &&
		lnetctl tbf rule start --service ost_io w 'opcode={ost_write}' rate=$((4 * ncpt)) &&
		wait_for 60 started "tbf opcode" && wait_for 60 listed w 'opcode={ost_write}' 4
}
tap "an opcode rule of $((4 * ncpt))/s in all: Lustre lists $((4 * ncpt))/$ncpt = 4 per CPT" c_opcode
tap "the client's writes are held to it" slower_than_rule 20 4

# --- what Lustre cannot hold is refused by lnetd, and nothing changes -----
c_refused() {
	_before="$(policies)$(rules)$(lnetctl tbf show --service ost_io)"
	! lnetctl tbf rule start --service ost_io e 'opcode={ldlm_enqueue}' rate=10 >/tmp/ref.out 2>&1 &&
		cat /tmp/ref.out && grep -q bitmap /tmp/ref.out &&
		[ "$_before" = "$(policies)$(rules)$(lnetctl tbf show --service ost_io)" ]
}
tap "ldlm_enqueue (opcode 101) is refused with Lustre's reason, nothing changed" c_refused

# --- the OST remounted: lnetd applies the rule to the new ost_io -----------
umount /mnt/ost1
tap "the last OST unmounted: ost_io is gone" wait_for 60 sh -c "! lctl get_param -n $P.nrs_policies"
tap "an OST mounted again (OST0002)" timed mount-ost2 mount_target OST 2 10.1.0.1@tcp /mnt/ost2
c_back() { wait_for 120 started "tbf opcode" && wait_for 60 listed w 'opcode={ost_write}' 4; }
tap "ost_io back: lnetd applied its rule again with no admin action" c_back

# --- the policy deleted: ost_io back to fifo -------------------------------
c_del() { lnetctl tbf del --service ost_io && wait_for 60 started fifo && ! lnetctl tbf show --service ost_io | grep -q 'w opcode'; }
tap "lnetctl tbf del: ost_io back to fifo" c_del
tap "lnetd says everything is applied" lnetd_applied
grep -i -E 'tbf|drift|ost_io' "$LNETD_LOG" | head -n 20 | sed 's/^/# lnetd: /'
exit $fails
