# SPDX-License-Identifier: GPL-2.0
# tests/vm/lustre-fs/guest-tbf.sh - lnetd's TBF layer for Lustre's services
# (lnetd/backend/lustre/lu-tbf.h, through the lutbf tool) against the real
# ost_io of the guest's OSS: rules applied, listed as lnetd means them
# (rates divided by the service's CPTs unless the type has nid), drift made behind the library's
# back with lctl and found, put back; refusals that change nothing; the
# other services; the rules gone with the last OST and applied again.
# Run by init once the file system is mounted; one TAP line per case; its
# exit status is the number of failed cases.  Nothing here depends on
# timing.
. /lib/lustre-fs/fixture.sh
P=ost.OSS.ost_io
fails=0


rules() { lctl get_param -n "$P.nrs_tbf_rule" 2>/dev/null; }
policies() { lctl get_param -n "$P.nrs_policies" 2>/dev/null; }

# per TOTAL: the per-CPT rate lnetd writes for TOTAL (rounded to nearest)
# when the type has no nid (a nid class lives in one CPT: TOTAL as it is).
per() { echo $((($1 + ncpt / 2) / ncpt)); }

# listed NAME CONDS RATE [QUEUES]: every CPT of the queues (default: both)
# lists "NAME CONDS RATE, ref n", once.
listed() {
	rules | awk -v line="$1 $2 $3, ref" -v want="${4:-reg hp}" '
		/^regular_requests:/ { q = "reg"; next }
		/^high_priority_requests:/ { q = "hp"; next }
		/^CPT / { cpts[q]++; next }
		index($0, line) == 1 { hits[q]++ }
		END {
			n = split(want, w, " ")
			for (i = 1; i <= n; i++)
				if (cpts[w[i]] == 0 || hits[w[i]] != cpts[w[i]]) {
					printf "%s: %d of %d CPTs list \"%s\"\n", w[i], hits[w[i]], cpts[w[i]], line
					bad = 1
				}
			exit bad
		}' || {
		rules
		return 1
	}
}

# unlisted NAME: no CPT of any queue lists a rule NAME.
unlisted() { ! rules | grep -q "^$1 "; }

# order QUEUE NAMES: each CPT of QUEUE lists exactly these rules, in order.
order() {
	rules | awk -v q="$1" -v want="$2" '
		/^regular_requests:/ { in_q = (q == "reg"); next }
		/^high_priority_requests:/ { in_q = (q == "hp"); next }
		!in_q { next }
		/^CPT / { if (got != "") seen[++n] = got; got = ""; next }
		{ got = got (got == "" ? "" : " ") $1 }
		END {
			if (got != "") seen[++n] = got
			for (i = 1; i <= n; i++)
				if (seen[i] != want) { printf "CPT #%d: %s, not %s\n", i, seen[i], want; bad = 1 }
			exit n == 0 || bad
		}'
}

# policy_is TEXT: both queues run TEXT ("tbf nid", "fifo").
policy_is() {
	policies | awk -v want="$1" '
		/^ *- name: / { name = $0; sub(/^ *- name: /, "", name) }
		/state: started/ && /started/ { if (name != "fifo") primary[q] = name; else if (!(q in primary)) primary[q] = "fifo" }
		/^regular_requests:/ { q = "reg" }
		/^high_priority_requests:/ { q = "hp" }
		END { exit !(primary["reg"] == want && primary["hp"] == want) }' || {
		policies | grep -B1 'state: started'
		return 1
	}
}

# expect_drift WORDS RULES...: lutbf check finds drift, and says WORDS.
expect_drift() {
	_w=$1
	shift
	lutbf check ost_io "$@" >/tmp/drift.out 2>&1
	_rc=$?
	cat /tmp/drift.out
	[ $_rc = 1 ] && grep -q -F "$_w" /tmp/drift.out
}

# applied_with N RULES...: lutbf apply takes it with exactly N writes.
applied_with() {
	_n=$1
	shift
	lutbf apply ost_io "$@" >/tmp/applied.out 2>&1
	_rc=$?
	cat /tmp/applied.out
	[ $_rc = 0 ] && grep -q "with $_n writes" /tmp/applied.out
}

# refused WORDS ARGS...: lutbf apply refuses (exit 1, saying WORDS) and the
# service's two files read the same after.
refused() {
	_w=$1
	shift
	_before="$(policies)$(rules)"
	lutbf apply "$@" >/tmp/ref.out 2>&1
	_rc=$?
	cat /tmp/ref.out
	[ $_rc = 1 ] && grep -q -F "$_w" /tmp/ref.out && [ "$(policies)$(rules)" = "$_before" ]
}

CLI='start cli nid={0@lo} rate=20'

tap "lutbf applies a nid rule to ost_io" lutbf apply ost_io "$CLI"
ncpt=$(rules | awk '/^regular_requests:/ { r = 1; next } /^high_priority_requests:/ { r = 0 } r && /^CPT / { n++ } END { print n + 0 }')
echo "# ost_io has $ncpt CPU partitions (libcfs cpu_npartitions=${LUSTRE_FS_CPTS:-default})"
[ "$ncpt" -ge 1 ] || ncpt=1
tap "both queues run tbf nid" policy_is "tbf nid"
c_first() { listed cli 'nid={0@lo}' 20 && listed default '*' 10000; }
tap "every CPT lists the nid rule at 20 and the default at 10000 (not divided: nid)" c_first
tap "lutbf check finds no drift right after apply" lutbf check ost_io "$CLI"
tap "applying the same again writes nothing" applied_with 0 "$CLI"

lctl set_param "$P.nrs_tbf_rule=change cli rate=50" >/dev/null
tap "a rate changed behind the library's back is drift" expect_drift "rule cli rate is 50" "$CLI"
tap "apply puts it back with one change per queue" applied_with 2 "$CLI"
tap "the rate is back" listed cli 'nid={0@lo}' 20

lctl set_param "$P.nrs_tbf_rule=start intruder nid={1@lo} rate=5" >/dev/null
tap "a rule started behind the library's back is drift" \
	expect_drift "rule intruder (nid={1@lo}, rate 5) is not lnetd's" "$CLI"
lutbf apply ost_io "$CLI" >/dev/null
tap "apply stops it" unlisted intruder

lctl set_param "$P.nrs_policies=fifo" >/dev/null
tap "the policy set back to fifo behind the library's back is drift" \
	expect_drift "the policy is 'fifo', lnetd wants 'tbf nid'" "$CLI"
lutbf apply ost_io "$CLI" >/dev/null
c_back() { policy_is 'tbf nid' && listed cli 'nid={0@lo}' 20; }
tap "apply starts tbf nid and the rule again" c_back
# one queue off TBF: nrs_tbf_rule then fails to read (ENODEV) for both
lctl set_param "$P.nrs_policies=fifo hp" >/dev/null
tap "the hp queue set back to fifo is drift, though the rules cannot be listed" \
	expect_drift "ost_io hp: the policy is 'fifo', lnetd wants 'tbf nid'" "$CLI"
c_hp_back() { lutbf apply ost_io "$CLI" && c_back; }
tap "apply starts tbf nid on hp, keeps reg's rule, and lists both" c_hp_back

lctl set_param "$P.nrs_tbf_rule=stop cli" >/dev/null
lctl set_param "$P.nrs_tbf_rule=start cli nid={0@lo 10.1.0.1@tcp} rate=20" >/dev/null
tap "other conditions under lnetd's rule name are drift" \
	expect_drift "rule cli tests 'nid={0@lo 10.1.0.1@tcp}', lnetd wants 'nid={0@lo}'" "$CLI"
lutbf apply ost_io "$CLI" >/dev/null
tap "apply restarts the rule with lnetd's conditions" listed cli 'nid={0@lo}' 20

A='start a nid={0@lo} rate=30'
B='start b nid={10.1.0.1@tcp} rate=40'
lutbf apply ost_io "$A" "$B" >/dev/null
c_order() { order reg "$1" && order hp "$1"; }
tap "rules are listed in lnetd's order (a new rule goes first)" c_order 'b a default'
tap "reordering them moves one rule per queue: two writes" applied_with 2 "$B" "$A"
tap "and the order is lnetd's" c_order 'a b default'
lctl set_param "$P.nrs_tbf_rule=reg change a rank=default" >/dev/null
tap "an order changed behind the library's back is drift" \
	expect_drift "the rules match in the order b a default, lnetd wants a b default" "$B" "$A"
lutbf apply ost_io "$B" "$A" >/dev/null
tap "apply puts the order back" c_order 'a b default'

c_hp() {
	lutbf apply ost_io 'hp start hpr nid={0@lo} rate=100' && listed hpr 'nid={0@lo}' 100 hp &&
		order reg default && order hp 'hpr default'
}
tap "an hp rule is listed in the hp queue only" c_hp
c_jobid() {
	lutbf apply ost_io --type jobid 'start jr jobid={dd.0} rate=10' && policy_is 'tbf jobid' &&
		listed jr 'jobid={dd.0}' "$(per 10)" &&
		lutbf check ost_io --type jobid 'start jr jobid={dd.0} rate=10'
}
tap "a jobid rule: tbf jobid" c_jobid
c_opcode() {
	lutbf apply ost_io --type opcode 'start opw opcode={ost_write} rate=10' &&
		policy_is 'tbf opcode' && listed opw 'opcode={ost_write}' "$(per 10)"
}
tap "an opcode rule: tbf opcode" c_opcode
c_combined() {
	lutbf apply ost_io --type nid+opcode 'start w nid={0@lo}&opcode={ost_write} rate=20' &&
		policy_is 'tbf nid+opcode' && listed w 'nid={0@lo}&opcode={ost_write}' 20
}
tap "a combined type (2.17): nid+opcode, '&' in the conditions" c_combined
c_commas() {
	lutbf apply ost_io 'start l nid={10.1.0.[1,3]@tcp} rate=10' &&
		lutbf check ost_io 'start l nid={10.1.0.[1,3]@tcp} rate=10' &&
		listed l 'nid={10.1.0.[1]@tcp 10.1.0.[3]@tcp}' 10
}
tap "a NID list with ',' is written as its ranges, which Lustre takes" c_commas

# Refusals: exit 1, the reason, and nothing written.
lutbf apply ost_io "$CLI" >/dev/null
tap "ldlm_enqueue is refused (Lustre's opcode bitmap), nothing written" \
	refused "bitmap" ost_io --type opcode 'start o opcode={ldlm_enqueue} rate=10'
tap "a type of 24 characters is refused, nothing written" \
	refused "at most 19 characters" ost_io --type nid+jobid+opcode+uid+gid "$CLI"
tap "a depth other than ptlrpc's tbf_depth is refused, nothing written" \
	refused "tbf_depth" ost_io --depth 5 "$CLI"
tap "a nid rule above 999,999 is refused, nothing written" \
	refused "at most 999999 per rule" ost_io "start big nid={0@lo} rate=1000000"
tap "a jobid rule above 999,999 per CPT is refused, nothing written" \
	refused "at most 999999 per" ost_io --type jobid "start big jobid={x} rate=$((1000000 * ncpt))"
if [ "$ncpt" -ge 2 ]; then
	tap "a jobid rate below the CPT count is refused, nothing written" \
		refused "cannot be spread over the $ncpt CPU partitions" ost_io --type jobid 'start one jobid={x} rate=1'
	c_judge() { ! lutbf judge ost_io --type jobid 'start one jobid={x} rate=1' && lutbf judge ost_io 'start one nid={0@lo} rate=1'; }
	tap "the engine's judge refuses it too (TBF running: the CPTs known), and takes 1/s of a nid class" c_judge
	lutbf release ost_io
	c_put_back() { refused 'cannot be spread' ost_io --type jobid 'start one jobid={x} rate=1' && policy_is fifo; }
	tap "refused after starting TBF to count the CPTs: the old policy is put back" c_put_back
fi
lutbf apply ost_io "$CLI" >/dev/null
c_release() { lutbf release ost_io && policy_is fifo; }
tap "release sets both queues back to fifo" c_release

# Every service INTERFACES.md lists that this node runs takes a rule.
ran=""
absent=""
for svc in ost ost_create ost_io ost_seq ost_out mdt mdt_readpage mdt_out mdt_seqs mdt_seqm \
	mdt_fld mdt_io ldlm_cbd ldlm_canceld mgs; do
	if ! lutbf show "$svc" >/dev/null 2>&1; then
		absent="$absent $svc"
		continue
	fi
	if lutbf apply "$svc" 'start s nid={0@lo} rate=5000' >/tmp/svc.out 2>&1 &&
		lutbf check "$svc" 'start s nid={0@lo} rate=5000' >>/tmp/svc.out 2>&1 &&
		lutbf release "$svc" >>/tmp/svc.out 2>&1; then
		ran="$ran $svc"
	else
		echo "# $svc:"
		sed 's/^/#   /' /tmp/svc.out
		ran="$ran $svc(FAILED)"
	fi
done
echo "# services:$ran; not on this node:$absent"
c_all() { ! echo "$ran" | grep -q FAILED; }
tap "every Lustre service on the node takes a rule through the library" c_all
c_names() {
	lutbf apply mdt --type opcode 'start g opcode={mds_getattr_name} rate=500' &&
		lctl get_param -n mds.MDS.mdt.nrs_tbf_rule | grep -q '^g opcode={mds_getattr_lock} ' &&
		lutbf release mdt
}
tap "opcode names are Lustre's: mds_getattr_name is written mds_getattr_lock (mdt)" c_names

# The lustre engine's TBF side (lustre-tbf.h) as lnetd runs it: `lutbf
# watch` holds one policy, polling every 200 ms as after an OSS uevent.
# Each case waits for a state that must come (a rule listed again), up to
# a bound far beyond a TCG guest's slowest poll: the verdict is whether
# it came, never how soon.
# until_ok SECONDS CMD...: CMD succeeds before SECONDS pass.
until_ok() {
	_end=$(($(now_ms) + $1 * 1000))
	shift
	until "$@" >/dev/null 2>&1; do
		[ "$(now_ms)" -lt "$_end" ] || {
			"$@"
			return 1
		}
		sleep 0.2
	done
}
lutbf release ost_io
lutbf watch 200 ost_io "$CLI" >/tmp/watch.log 2>&1 &
watcher=$!
c_w_sync() { until_ok 60 listed cli 'nid={0@lo}' 20 && grep -q 'sync: 1 applied, 0 failed' /tmp/watch.log; }
tap "the engine's sync applies lnetd's policy to ost_io" c_w_sync
lctl set_param "$P.nrs_tbf_rule=change cli rate=50" >/dev/null
c_w_drift() {
	until_ok 60 grep -q 'TBF drift on service ost_io: ost_io reg CPT [0-9]*: rule cli rate is 50' /tmp/watch.log &&
		until_ok 60 listed cli 'nid={0@lo}' 20
}
tap "drift made with lctl is logged by the engine and put back, with no admin action" c_w_drift
lctl set_param "$P.nrs_tbf_rule=start intruder nid={1@lo} rate=5" >/dev/null
c_w_intruder() { until_ok 60 unlisted intruder && listed cli 'nid={0@lo}' 20; }
tap "a rule started behind lnetd's back is stopped by the engine" c_w_intruder
c_w_view() { lutbf view | grep -qx "ost_io reg nid: start cli nid={0@lo} rate=20"; }
tap "the engine's view lists what ost_io runs, in lnetd's rates" c_w_view

# The last OST unmounted: ost_io and its rules go; a target mounted again
# brings ost_io back without them, and the engine applies them again on
# its own (lnetd's lustre engine: the OSS uevent starts the fast poll).  A
# wbcfs target always registers as new, and the MGS refuses an index it
# knows (-98): the target mounted again is OST0001.
umount /mnt/ost0
c_gone() {
	lutbf apply ost_io "$CLI" >/tmp/gone.out 2>&1
	_rc=$?
	cat /tmp/gone.out
	[ $_rc = 2 ] && grep -q 'not on this node' /tmp/gone.out
}
tap "with the last OST unmounted, apply says ost_io is not on the node" c_gone
c_w_gone() { until_ok 60 grep -q 'service ost_io is gone' /tmp/watch.log; }
tap "the engine notes ost_io gone" c_w_gone
tap "an OST mounted again (OST0001)" timed mount-ost1 mount_target OST 1 10.1.0.1@tcp /mnt/ost1
c_w_back() {
	until_ok 120 listed cli 'nid={0@lo}' 20 && policy_is 'tbf nid' &&
		grep -q 'service ost_io appeared: applying' /tmp/watch.log
}
tap "ost_io back: the engine applied the rule again with no admin action" c_w_back
kill "$watcher"
wait "$watcher" 2>/dev/null
sed 's/^/# watch: /' /tmp/watch.log | head -n 40
lutbf release ost_io
exit $fails
