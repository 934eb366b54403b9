# SPDX-License-Identifier: GPL-2.0
# tests/vm/lustre-fs/bench-t3.sh - T3: upstream Lustre's NRS TBF on ost_io,
# driven through lnetd's TBF layer (the lutbf tool over lu-tbf.h), measured
# with a client's 4 KiB O_DIRECT writes to one OST (one ost_write RPC
# each, checked against ost_io's stats).  Run by init once the file system
# is mounted (LUSTRE_FS_MODE=bench; tests/vm/lustre-fs/run.sh bench).
#
# Figures are printed as "# T3 ..." lines: achieved / configured, measured
# in this run (and as FIGURE lines for make bench's doc/BENCHMARKS.md).
# One writer's figure is bounded by its own round trips: TBF without
# realtime drops a token's fraction, so a write that comes back later than
# the rule's interval loses the rest of it; the 4-writer figures keep a
# request waiting in the class, so that the rule alone sets the pace.
# What the server manages with no rule (one writer, and four) is measured in
# the same run: a figure means something only where that is well above the
# rule.  Upstream's own TBF is measured beside lnetd's first, in turns in
# the same run: FULL.md's nid rule set by hand with lctl, and the same rule
# through lnetd (lnetctl tbf), and by hand with lnetd stopped (as FULL.md);
# the quotient lnetd / by hand is what lnetd costs (0.95 to 1.02 over four
# runs, i.e. nothing beyond the noise: Lustre lists both rules alike).  Where the
# host's load reaches the guest, the service thread wakes late for each
# token, and TBF without realtime drops the token's fraction at every
# dequeue: a lateness d per RPC gives 1 / (1/R + d), so the same d (about
# 5 ms at load 10) costs 5 % at 10 RPC/s and 10 % at 20, as much to the
# rule set by hand as to lnetd's (realtime=1 gains a little).  A guest on
# qemu's instruction-counted clock (-icount shift=0,sleep=off), which the
# host's load could not move, reached /init after 270 s instead of 15: the
# bench would take over an hour, so it is not used.
# TAP lines only for what no load can change:
#  - each write is one ost_write RPC (the stats' count);
#  - lnetd's rule is listed in nrs_tbf_rule as the one set by hand (every
#    queue and CPT, the class counts aside);
#  - no rule lets more through than its rate allows: N <= r x t + depth x
#    CPTs, a token bucket's bound, which a slow machine only moves further
#    from;
#  - a write rule does not hold reads: 400 direct reads end in less time
#    than a 1 RPC/s rule would need for them (397 s), a margin a busy host
#    slowing TCG ten times over does not close; and the reads' class
#    follows the default rule in every CPT's listing, whatever the timing;
#  - the rule is listed again after the OSS came back, applied by the lustre
#    engine's TBF side (lutbf watch) with no admin action.
# Exit status: the number of failed TAP lines.
. /lib/lustre-fs/fixture.sh
fails=0
P=ost.OSS.ost_io
F=/mnt/lustre/t3


# cs: the uptime in centiseconds.
cs() { awk '{ printf "%d", $1 * 100 }' /proc/uptime; }

# wdd FILE N: N 4 KiB direct writes over FILE's first blocks; prints
# "<N> <centiseconds> <ost_write RPCs>".  $DD is dd (a job's own copy of
# busybox, so that it is exec'd with the job's environment).
wdd() {
	_w0=$(ost_writes)
	_t0=$(cs)
	${DD:-dd} if=/dev/zero of="$1" bs=4k count="$2" oflag=direct conv=notrunc 2>/tmp/wdd.err ||
		sed 's/^/# dd: /' /tmp/wdd.err >&2
	_t1=$(cs)
	echo "$2 $((_t1 - _t0)) $(($(ost_writes) - _w0))"
}

# pwdd N K: N 4 KiB direct writes by K writers at once, each N/K over its
# own file ($F.p0 ...: one stripe on OST0000), so that the rule's class
# always has a request waiting: the rule's rate, not one writer's round
# trips, sets the pace.  "<N> <centiseconds> <ost_write RPCs>".
pwdd() {
	_w0=$(ost_writes)
	_t0=$(cs)
	_k=0
	_pids=""
	while [ $_k -lt "$2" ]; do
		dd if=/dev/zero of=$F.p$_k bs=4k count=$(($1 / $2)) oflag=direct conv=notrunc 2>/dev/null &
		_pids="$_pids $!"
		_k=$((_k + 1))
	done
	# shellcheck disable=SC2086
	wait $_pids
	_t1=$(cs)
	echo "$1 $((_t1 - _t0)) $(($(ost_writes) - _w0))"
}

# rdd FILE N: N 4 KiB direct reads; "<N> <centiseconds> <ost_read RPCs>".
rdd() {
	_r0=$(ost_reads)
	_t0=$(cs)
	dd if="$1" of=/dev/null bs=4k count="$2" iflag=direct 2>/dev/null
	_t1=$(cs)
	echo "$2 $((_t1 - _t0)) $(($(ost_reads) - _r0))"
}

# rate N CS: N over CS centiseconds, per second.
rate() { awk -v n="$1" -v c="$2" 'BEGIN { printf "%.1f", (c > 0 ? n * 100 / c : 0) }'; }
# ratio ACHIEVED CONFIGURED
ratio() { awk -v a="$1" -v c="$2" 'BEGIN { printf "%.3f", a / c }'; }
# fig WHAT ACHIEVED CONFIGURED: a T3 figure for doc/BENCHMARKS.md, on the
# console (run.sh bench takes "FIGURE" lines to $BENCH_FIGURES; the format
# is bench/figure.sh's): achieved / configured, target 0.9 to 1.02.
fig() {
	_r=$(ratio "$2" "$3")
	printf 'FIGURE\tT3\tlustre\t%s\t%s RPC/s\t%s RPC/s configured\t%s\t0.9 to 1.02\t%s\n' \
		"$1 (4 KiB O_DIRECT writes, one ost_write RPC each, to one OST; VM guest, qemu TCG; fifo managed $FIFO RPC/s)" \
		"$2" "$3" "$_r" "$(awk -v v="$_r" 'BEGIN { print (v >= 0.9 && v <= 1.02) ? "ok" : "FAIL" }')"
}

# within N CS RATE: N requests in CS centiseconds are within what a bucket
# of RATE RPC/s per CPT (ncpt CPTs, depth 3 each) lets through, +1 %.
within() {
	awk -v n="$1" -v c="$2" -v r="$3" -v k="$ncpt" 'BEGIN {
		max = r * k * (c + 1) / 100 * 1.01 + 3 * k
		if (n > max) { printf "%d RPCs in %.2f s: more than %.1f allowed\n", n, c / 100, max; exit 1 }
	}'
}

# throttled NAME RATE N [PER_CPT]: the write figure under a rule of RATE in
# all (PER_CPT in each CPT: default RATE, as lnetd writes a nid rule),
# writing $TF.
TF=$F
throttled() {
	_pc=${4:-$2}
	set -- "$1" "$2" "$3" $(wdd $TF "$3")
	set -- "$@" "$_pc"
	_got=$(rate "$3" "$5")
	echo "# T3 $1: configured $2 RPC/s, $3 writes ($6 ost_write RPCs) in $(awk -v c="$5" 'BEGIN { printf "%.2f", c / 100 }') s: achieved $_got RPC/s, achieved/configured $(ratio "$_got" "$2")"
	fig "$1" "$_got" "$2"
	c_one_each() { [ "$1" = "$2" ] || echo "$1 ost_write RPCs for $2 writes"; [ "$1" = "$2" ]; }
	tap "$1: one ost_write RPC per write" c_one_each "$6" "$3"
	tap "$1: no more ost_write RPCs than the rule allows" within "$6" "$5" "${7:-$2}"
}

lctl set_param jobid_var=LUSTRE_JOBID >/dev/null # a job names itself in its environment
lfs setstripe -c 1 -i 0 $F
dd if=/dev/zero of=$F bs=1M count=4 2>/dev/null
sync

set -- $(wdd $F 400)
echo "# T3 fifo, no rule: 400 writes in $(awk -v c="$2" 'BEGIN { printf "%.2f", c / 100 }') s: $(rate 400 "$2") RPC/s"
FIFO=$(rate 400 "$2")
tap "each 4 KiB O_DIRECT write is one ost_write RPC ($3 for 400)" test "$3" = 400

# --- side by side: upstream's TBF set by hand, and the same rule through lnetd
# The rule of ../shared/lustre/FULL.md's 0.93-0.99 (one writer, R x 10
# writes), once written by hand with lctl as FULL.md does, once through
# lnetd (lnetctl tbf: CLI, D-Bus, store, the lustre engine's writes), in
# turns (hand first, then lnetd first), so that both meet the same load.
# The quotient lnetd / hand is the figure that says what lnetd costs; the
# absolute ones say how loaded the host was.  Each run starts from fifo, so
# both begin with a full bucket.
SIDE='nid={0@lo 10.1.0.1@tcp}'
rules() { lctl get_param -n $P.nrs_tbf_rule 2>/dev/null; }
# cli_listed RATE: every CPT lists rule cli at RATE
cli_listed() {
	rules | awk -v r="$1" '/^CPT / { c++ } /^cli / { if ($(NF - 2) == r ",") h++ } END { exit !(c > 0 && h == c) }'
}
# fifo_started: both queues run fifo alone (fifo stays started beside
# another policy, as its fallback)
fifo_started() {
	lctl get_param -n $P.nrs_policies | awk '/^ *- name: / { name = $0; sub(/^ *- name: /, "", name) }
		/state: started/ { if (name == "fifo") f++; else o++ } END { exit !(f == 2 && o == 0) }'
}
# cli_refs: the class count of rule cli in each CPT of the regular queue
# ("ref N" = how many client classes hang on it there): which CPTs the
# client's requests reached, whatever the timing
cli_refs() { rules | awk '/^regular_requests:/ { r = 1; next } /^high/ { r = 0 } r && /^cli / { printf "%s ", $NF }'; }
# unref: nrs_tbf_rule's listing without the class counts (", ref N")
unref() { rules | sed 's/, ref [0-9]*$//'; }
cli_text() { rules | awk '/^cli / { print; exit }'; }
# lnetd_ticks: the CPU time lnetd has used, in clock ticks (utime + stime)
lnetd_ticks() {
	_lp=$(pidof lnetd 2>/dev/null | cut -d' ' -f1)
	if [ -n "$_lp" ]; then awk '{ print $14 + $15 }' "/proc/$_lp/stat"; else echo 0; fi
}
# busy_ticks: the guest's CPU time not idle, in clock ticks (all CPUs)
busy_ticks() { awk '/^cpu / { print $2 + $3 + $4 + $7 + $8; exit }' /proc/stat; }
# side_measure RATE: "<RPC/s> <writes> <ost_write RPCs> <centiseconds>
# <lnetd's ticks> <the guest's busy ticks>"
side_measure() {
	_k0=$(lnetd_ticks)
	_b0=$(busy_ticks)
	set -- $(wdd $F "$(($1 * 10))")
	echo "$(rate "$1" "$2") $1 $3 $2 $(($(lnetd_ticks) - _k0)) $(($(busy_ticks) - _b0))"
}
# side_hand RATE / side_lnetd RATE: set the rule, run the writes, take it
# away; print "<rate achieved>" (the rest on stderr, the console)
side_show() { echo "$1 RPC/s, $2 writes, $3 ost_write RPCs, in $4 cs; CPU meanwhile: lnetd $5 ticks, the guest $6"; }
side_hand() {
	lctl set_param $P.nrs_policies="tbf nid" >/dev/null &&
		lctl set_param $P.nrs_tbf_rule="start cli $SIDE rate=$1" >/dev/null || echo "# T3 side: lctl refused the rule" >&2
	wait_for 60 cli_listed "$1" || echo "# T3 side: the hand rule is not listed" >&2
	unref >/tmp/side-hand.$1
	_m=$(side_measure "$1")
	echo "# T3 side by hand, $1 RPC/s: '$(cli_text)' (class refs per CPT: $(cli_refs)): $(side_show $_m)" >&2
	lctl set_param $P.nrs_tbf_rule="stop cli" >/dev/null
	lctl set_param $P.nrs_policies=fifo >/dev/null
	wait_for 60 fifo_started || echo "# T3 side: ost_io not back on fifo" >&2
	echo "${_m%% *}"
}
side_lnetd() {
	lnetctl tbf rule --service ost_io "start cli $SIDE rate=$1" >/tmp/side.out 2>&1 ||
		sed 's/^/# T3 side: lnetctl: /' /tmp/side.out >&2
	wait_for 60 cli_listed "$1" || echo "# T3 side: lnetd's rule is not listed" >&2
	wait_for 60 lnetd_applied >/dev/null || echo "# T3 side: lnetd has not applied everything" >&2
	unref >/tmp/side-lnetd.$1
	_m=$(side_measure "$1")
	echo "# T3 side through lnetd, $1 RPC/s: '$(cli_text)' (class refs per CPT: $(cli_refs)): $(side_show $_m)" >&2
	lnetctl tbf del --service ost_io >/dev/null 2>&1
	wait_for 60 fifo_started || echo "# T3 side: ost_io not back on fifo" >&2
	echo "${_m%% *}"
}
# side_alone RATE: the hand-written rule with lnetd stopped (LNet stays as
# it configured it), as FULL.md measured it: what lnetd's mere running
# (its LNet poll, its TBF poll) costs the server; lnetd started again
side_alone() {
	lnetd_stop || echo "# T3 side: lnetd did not stop" >&2
	_a=$(side_hand "$1" 2>/tmp/side-alone.err)
	sed 's/side by hand/side by hand, lnetd stopped/' /tmp/side-alone.err >&2
	lnetd_start >/dev/null 2>&1 || echo "# T3 side: lnetd did not start again" >&2
	echo "$_a"
}
for R in 10 20; do
	# three of each, in turns that start once with each; lnetd stopped
	# before and after them
	a1=$(side_alone $R)
	h1=$(side_hand $R)
	l1=$(side_lnetd $R)
	l2=$(side_lnetd $R)
	h2=$(side_hand $R)
	h3=$(side_hand $R)
	l3=$(side_lnetd $R)
	a2=$(side_alone $R)
	a=$(awk -v a="$a1" -v b="$a2" 'BEGIN { printf "%.2f", (a + b) / 2 }')
	h=$(awk -v a="$h1" -v b="$h2" -v c="$h3" 'BEGIN { printf "%.2f", (a + b + c) / 3 }')
	l=$(awk -v a="$l1" -v b="$l2" -v c="$l3" 'BEGIN { printf "%.2f", (a + b + c) / 3 }')
	q=$(awk -v a="$l" -v b="$h" 'BEGIN { printf "%.3f", (b > 0 ? a / b : 0) }')
	echo "# T3 side by side at $R RPC/s (one writer, $((R * 10)) writes, three times each): by hand $h1 $h2 $h3 -> $(ratio "$h" $R) of the rate; through lnetd $l1 $l2 $l3 -> $(ratio "$l" $R); lnetd / by hand $q"
	echo "# T3 by hand with lnetd stopped, $R RPC/s: $a1 $a2 -> $(ratio "$a" $R) of the rate; by hand with lnetd running / with it stopped $(ratio "$h" "$a")"
	fig "upstream's own TBF set by hand, lnetd stopped (as FULL.md), $R RPC/s" "$a" $R
	fig "upstream's own TBF, nid rule set by hand with lctl, $R RPC/s (baseline)" "$h" $R
	fig "the same nid rule through lnetd (lnetctl tbf), $R RPC/s" "$l" $R
	printf 'FIGURE\tT3\tlustre\t%s\t%s\t%s\t%s\t0.95 to 1.05\t%s\n' \
		"lnetd's nid rule / the same rule set by hand, $R RPC/s, same run (by hand $h RPC/s, lnetd $l RPC/s)" \
		"$l RPC/s" "$h RPC/s by hand" "$q" "$(awk -v v="$q" 'BEGIN { print (v >= 0.95 && v <= 1.05) ? "ok" : "FAIL" }')"
	# what lnetd wrote is what was written by hand: every queue and CPT
	# lists the same rules at the same rates (the class counts aside)
	c_same() {
		cat /tmp/side-lnetd.$R
		grep -q "^cli nid={0@lo 10.1.0.1@tcp} $R\$" /tmp/side-hand.$R && diff /tmp/side-hand.$R /tmp/side-lnetd.$R
	}
	tap "$R RPC/s: ost_io lists lnetd's rule as it lists the hand-written one, in every queue and CPT" c_same
done
grep -a 'drift poll' "$LNETD_LOG" | tail -n 3 | sed 's/^/# T3 lnetd: /'

lutbf apply ost_io 'start cli nid={0@lo} rate=10' >/dev/null
ncpt=$(lctl get_param -n $P.nrs_tbf_rule | awk '/^regular_requests:/ { r = 1; next } /^high/ { r = 0 } r && /^CPT / { n++ } END { print n + 0 }')
[ "$ncpt" -ge 1 ] || ncpt=1
per() { echo $((($1 + ncpt / 2) / ncpt)); }
echo "# T3 ost_io has $ncpt CPU partitions: a nid rule of R RPC/s is written as R, other types as R/$ncpt per partition"
throttled "nid rule, 10 RPC/s" 10 100
lutbf apply ost_io 'start cli nid={0@lo} rate=20' >/dev/null
throttled "nid rule, 20 RPC/s" 20 200
# upstream keeps a token's fraction only for realtime rules (nrs_tbf.c)
lutbf apply ost_io 'start cli nid={0@lo} rate=20 realtime=1' >/dev/null
throttled "nid rule, 20 RPC/s, realtime=1" 20 200
# The same rules with 4 writers at once: a request always waits in the class.
for k in 0 1 2 3; do
	lfs setstripe -c 1 -i 0 $F.p$k && dd if=/dev/zero of=$F.p$k bs=1M count=1 2>/dev/null
done
sync
pthrottled() {
	set -- "$1" "$2" "$3" $(pwdd "$3" 4)
	_got=$(rate "$3" "$5")
	echo "# T3 $1: configured $2 RPC/s, $3 writes ($6 ost_write RPCs) in $(awk -v c="$5" 'BEGIN { printf "%.2f", c / 100 }') s: achieved $_got RPC/s, achieved/configured $(ratio "$_got" "$2")"
	fig "$1" "$_got" "$2"
	tap "$1: no more ost_write RPCs than the rule allows" within "$6" "$5" "$2"
}
# What the server manages with 4 writers and no rule, in this run: a
# rule's figure can only be read against it (a host busy enough to bring it
# near the rule's rate brings the figure down with it, whatever TBF does).
lutbf release ost_io
set -- $(pwdd 400 4)
FIFO4=$(rate 400 "$2")
echo "# T3 fifo, no rule, 4 writers at once: 400 writes in $(awk -v c="$2" 'BEGIN { printf "%.2f", c / 100 }') s: $FIFO4 RPC/s, $(ratio "$FIFO4" 20) times a 20 RPC/s rule"
lutbf apply ost_io 'start cli nid={0@lo} rate=10' >/dev/null
pthrottled "nid rule, 10 RPC/s, 4 writers at once" 10 100
lutbf apply ost_io 'start cli nid={0@lo} rate=20' >/dev/null
pthrottled "nid rule, 20 RPC/s, 4 writers at once" 20 200
# realtime keeps the token's fraction a late wake-up would lose (a loaded
# TCG host wakes the service thread late): with 4 writers the class never
# runs dry, so only the server's capacity can hold it under the rate
lutbf apply ost_io 'start cli nid={0@lo} rate=20 realtime=1' >/dev/null
pthrottled "nid rule, 20 RPC/s, realtime=1, 4 writers at once" 20 200
if [ "$ncpt" -gt 1 ]; then
	# dd on CPU 0: over 0@lo its requests arrive on CPU 0's partition
	_t0=$(cs)
	taskset 1 dd if=/dev/zero of=$F bs=4k count=100 oflag=direct conv=notrunc 2>/dev/null
	_t1=$(cs)
	echo "# T3 nid rule, 20 RPC/s over $ncpt CPTs, dd pinned to CPU 0: achieved $(rate 100 $((_t1 - _t0))) RPC/s ($(ratio "$(rate 100 $((_t1 - _t0)))" 20) of the total)"
fi

# Two jobs under two rules, at once.
lutbf apply ost_io --type jobid 'start ja jobid={jobA} rate=10' 'start jb jobid={jobB} rate=20' >/dev/null
lfs setstripe -c 1 -i 0 $F.b
dd if=/dev/zero of=$F.b bs=1M count=4 2>/dev/null
w0=$(ost_writes)
# busybox runs its applets without exec, so the kernel would find the
# shell's first environment: each job execs a copy of busybox named dd
mkdir -p /tmp/job && cp /bin/busybox /tmp/job/dd
(
	export LUSTRE_JOBID=jobA DD=/tmp/job/dd
	wdd $F 100 >/tmp/ja.out
) &
pa=$!
(
	export LUSTRE_JOBID=jobB DD=/tmp/job/dd
	wdd $F.b 200 >/tmp/jb.out
) &
pb=$!
wait $pa $pb
set -- $(cat /tmp/ja.out)
echo "# T3 job A, rule 10 RPC/s: $(rate "$1" "$2") RPC/s, achieved/configured $(ratio "$(rate "$1" "$2")" 10)"
fig "job A under its jobid rule, 10 RPC/s, while job B writes" "$(rate "$1" "$2")" 10
tap "job A: no more RPCs than its rule allows" within "$1" "$2" "$(per 10)"
set -- $(cat /tmp/jb.out)
echo "# T3 job B, rule 20 RPC/s: $(rate "$1" "$2") RPC/s, achieved/configured $(ratio "$(rate "$1" "$2")" 20)"
fig "job B under its jobid rule, 20 RPC/s, while job A writes" "$(rate "$1" "$2")" 20
tap "job B: no more RPCs than its rule allows" within "$1" "$2" "$(per 20)"
echo "# T3 the two jobs made $(($(ost_writes) - w0)) ost_write RPCs; ost_io's job_stats name: $(lctl get_param -n obdfilter.*OST0000.job_stats | awk '/job_id:/ { printf "%s ", $NF }')"

# An opcode rule: writes limited, reads not.
lutbf apply ost_io --type opcode 'start w opcode={ost_write} rate=10' >/dev/null
throttled "opcode rule on ost_write, 10 RPC/s" 10 100 "$(per 10)"
set -- $(rdd $F 400)
echo "# T3 reads under the same rule: 400 reads ($3 ost_read RPCs) in $(awk -v c="$2" 'BEGIN { printf "%.2f", c / 100 }') s: $(rate 400 "$2") RPC/s, not limited"
lutbf apply ost_io --type opcode 'start w opcode={ost_write} rate=1' >/dev/null
set -- $(rdd $F 400)
c_reads() {
	echo "400 reads in $(awk -v c="$1" 'BEGIN { printf "%.2f", c / 100 }') s; a 1 RPC/s rule would need 397 s"
	[ "$1" -lt 39700 ]
}
tap "reads are not held by a 1 RPC/s write rule (400 direct reads, far under 397 s)" c_reads "$2"
c_classes() {
	lctl get_param -n $P.nrs_tbf_rule | awk '
		/^regular_requests:/ { r = 1; next } /^high/ { r = 0 }
		r && /^CPT / { cpts++ }
		r && /^default / && !/ref 0$/ { used++ }
		END { print used + 0 " of " cpts " CPTs have a class on the default rule"; exit !(used >= 1) }'
	lctl get_param -n $P.nrs_tbf_rule
}
tap "the reads' class follows the default rule, not the write rule" c_classes

# bounded SECONDS COMMAND...: COMMAND in the background, waited for at most
# SECONDS; its status, or 124 when it had to be left behind.
bounded() {
	_s=$1
	shift
	"$@" &
	_p=$!
	_i=0
	while kill -0 $_p 2>/dev/null && [ $_i -lt $((_s * 10)) ]; do
		sleep 0.1
		_i=$((_i + 1))
	done
	if kill -0 $_p 2>/dev/null; then
		kill -9 $_p 2>/dev/null
		return 124
	fi
	wait $_p
}

# The OSS goes with its last OST and comes back (OST0001: a wbcfs target
# always registers as new, and the MGS refuses an index it knows).  The
# gone OST0000 is set inactive on the client and the MDT, so that nothing
# waits for it.
# The rule is held by the lustre engine's TBF side (`lutbf watch`: sync,
# then a poll every 200 ms, as after an OSS uevent): nothing is applied by
# hand after the remount.
lutbf release ost_io
lutbf watch 200 ost_io 'start cli nid={0@lo} rate=10' >/tmp/watch.log 2>&1 &
watcher=$!
c_listed() { lctl get_param -n $P.nrs_tbf_rule | grep -q "^cli nid={0@lo} 10, ref"; }
i=0
until c_listed || [ $i -ge 600 ]; do
	sleep 0.1
	i=$((i + 1))
done
umount /mnt/ost0
lctl set_param osc.lustre-OST0000-osc-[!M]*.active=0 osp.lustre-OST0000-osc-MDT0000.active=0 >/dev/null 2>&1
timed mount-ost1 mount_target OST 1 10.1.0.1@tcp /mnt/ost1
t0=$(now_ms)
i=0
until c_listed || [ $i -ge 1200 ]; do
	sleep 0.1
	i=$((i + 1))
done
echo "# T3 the rule listed again $(($(now_ms) - t0)) ms after OST0001 mounted, applied by the engine's poll (no admin action)"
c_back() { c_listed && grep -q 'service ost_io appeared: applying' /tmp/watch.log; }
tap "the rule holds again after the OST remount, with no admin action" c_back
ost1_active() { lctl get_param -n lov.lustre-clilov-*.target_obd 2>/dev/null | grep -q 'OST0001_UUID ACTIVE'; }
i=0
while ! ost1_active && [ $i -lt 1200 ]; do
	sleep 0.1
	i=$((i + 1))
done
echo "# T client-sees-ost1 $((i * 100)) ms"
prepare() { lfs setstripe -c 1 -i 1 $F.1 && dd if=/dev/zero of=$F.1 bs=1M count=1 2>/dev/null && sync; }
if bounded 180 prepare; then
	TF=$F.1
	throttled "nid rule, 10 RPC/s, after the OSS came back (no admin action)" 10 100
else
	echo "# T3 after the OSS came back: the client could not write to OST0001 within 180 s (not measured)"
fi
kill "$watcher" 2>/dev/null
sed 's/^/# watch: /' /tmp/watch.log | head -n 20
exit $fails
