#!/bin/sh
# NRS TBF through lnetctl and lnetd: policies and rules in both syntaxes,
# refusals naming the bad part and changing nothing, the tbf: section of
# export/import (round trip, re-import changes nothing), rollback, and
# persistence across a restart.  TAP.
set -u
. "$(dirname "$0")/lib.sh"
LNETD=${LNETD:-lnetd/lnetd}
L=${LNETCTL:-lnetctl/lnetctl}

if [ "$(id -u)" != 0 ]; then
	echo "1..0 # SKIP needs root"
	exit 0
fi

# run EXPECTED-RC ARGS...: lnetctl, its output (both streams) in $OUT.
run() {
	want=$1
	shift
	OUT=$("$L" "$@" 2>&1)
	got=$?
	[ "$got" = "$want" ] && return 0
	diag "lnetctl $*: exit $got, wanted $want" "$OUT"
	return 1
}

start_bus
check "lnetd starts" start_lnetd

check "a policy's type and depth are set" \
	run 0 tbf policy set --service ost_io --type nid+opcode --depth 5
check "the design's policy form is accepted" run 0 tbf policy set --service ost_io "tbf hp nid"
check "a rule in the newer syntax starts" \
	run 0 tbf rule start --service ost_io --queue reg io 'nid={10.0.0.[1-9]@tcp}&opcode={ost_write}' rate=100
check "a rule in the design's syntax starts" \
	run 0 tbf rule start --service ost_io --queue hp fast '{10.0.1.[1-3]@tcp}' 50
check "a rule's queue word may lead, as the design writes it" \
	run 0 tbf rule start --service ost_io hp slow '{10.0.2.1@tcp}' 5
check "the design's whole rule string is taken as is" \
	run 0 tbf rule --service ost_io "hp start slow2 {10.0.2.2@tcp} 6"
check "a queue that disagrees with the rule's is a usage error" \
	run 2 tbf rule --service ost_io --queue reg "hp stop slow2"
"$L" export >"$T/before.yaml"
check "a malformed rule is refused, naming the bad part" \
	run 1 tbf rule start --service ost_io --queue reg bad 'nid={10.0.0.[9-1]@tcp}'
case $OUT in *"range start 9 is above its end 1"*) ;; *) not_ok "the sentence says why: $OUT" ;; esac
check "a rule testing a field its queue's type lacks is refused" \
	run 1 tbf rule start --service ost_io --queue hp x 'opcode={ost_read}'
check "a bad queue is a usage error" run 2 tbf rule start --service ost_io --queue mid x '{0@lo}'
check "a depth out of range is a usage error" run 2 tbf policy set --service ost_io --depth 0
check "a rule without a service is a usage error" run 2 tbf rule stop x
"$L" export >"$T/after.yaml"
check "refusals changed nothing" cmp -s "$T/before.yaml" "$T/after.yaml"

check "a rule's rate changes" run 0 tbf rule change --service ost_io --queue hp fast rate=60
check "tbf show shows the policy" run 0 tbf show --service ost_io
case $OUT in *"rule: start fast nid={10.0.1.[1-3]@tcp} rate=60"*) ;; *) not_ok "with the changed rule: $OUT" ;; esac
case $OUT in *"type: nid+opcode"*"depth: 5"*) ;; *) not_ok "and the reg queue's settings" ;; esac
check "an unknown service is refused" run 1 tbf show --service nope
check "a default rule cannot be stopped" run 1 tbf rule stop --service ost_io --queue reg default

check "export writes the tbf: section" run 0 export
case $OUT in *"tbf:"*"service: ost_io"*"queue: hp"*) ;; *) not_ok "tbf: in export: $OUT" ;; esac
"$L" export >"$T/site.yaml"
bprop Generation
gen=$OUT
check "re-importing the export changes nothing" run 0 import "$T/site.yaml"
bprop Generation
check "(the generation stays)" test "$OUT" = "$gen"

stop_lnetd
rm -rf "$T/state"
start_lnetd
check "the export imports into an empty lnetd" run 0 import "$T/site.yaml"
"$L" export >"$T/again.yaml"
check "and exports identically" cmp -s "$T/site.yaml" "$T/again.yaml"
stop_lnetd
start_lnetd
"$L" export >"$T/restart.yaml"
check "TBF policies survive a restart" cmp -s "$T/site.yaml" "$T/restart.yaml"

check "a second reg rule goes first" \
	run 0 tbf rule start --service ost_io --queue reg writers 'opcode={ost_write}' rate=7
"$L" tbf show --service ost_io >"$T/shown.yaml"
check "a queue's type cannot drop a field its rules test" \
	run 1 tbf policy set --service ost_io --type nid
check "tbf show's output imports back (onto a policy deleted meanwhile)" \
	sh -c "'$L' tbf del --service ost_io && '$L' import '$T/shown.yaml'"
"$L" tbf show --service ost_io >"$T/shown2.yaml"
check "with the rules in the same order" cmp -s "$T/shown.yaml" "$T/shown2.yaml"
check "a file's new type and rules go in together, whatever the rules were" \
	run 0 import "$T/site.yaml"

# Lustre's projid (nrs_tbf.c's NRS_TBF_FLAG_PROJID), end to end through lnetd
check "a queue typed by project ID" run 0 tbf policy set --service ost_proj --type uid+projid
check "takes a projid rule" \
	run 0 tbf rule start --service ost_proj --queue reg proj 'projid={500 501}&uid={0}' rate=10
check "which tbf show gives back" run 0 tbf show --service ost_proj
case $OUT in *"type: uid+projid"*"rule: start proj projid={500 501}&uid={0} rate=10"*) ;; *) not_ok "projid in tbf show: $OUT" ;; esac
check "and export carries" run 0 export
case $OUT in *"projid={500 501}"*) ;; *) not_ok "projid in export: $OUT" ;; esac
check "a projid that is not a number is refused, naming it" \
	run 1 tbf rule start --service ost_proj --queue reg bad 'projid={x}'
case $OUT in *"projid 'x' is not a number"*) ;; *) not_ok "the sentence: $OUT" ;; esac
check "the projid policy goes" run 0 tbf del --service ost_proj

check "a policy is deleted" run 0 tbf del --service ost_io
check "and gone" run 1 tbf show --service ost_io
bcall History u 1
last=$(echo "$OUT" | awk '{ print $3 }')
check "rollback brings it back" run 0 rollback "$((last - 1))"
"$L" export >"$T/rolled.yaml"
check "exactly as it was" cmp -s "$T/site.yaml" "$T/rolled.yaml"
finish
