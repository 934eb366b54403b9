#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# check-docs.sh - keep the manual and the bash completion in step with the
# code, as a TAP test run by `make check` from the build directory.
#
# The programs are asked, not their sources read: `lnetctl --help` lists
# the commands and `lnetctl CMD --help` each command's long options, so a
# command or an option added to a table in lnetctl/cmd-*.c and forgotten
# in the docs fails here.  For each command:
#   - man/lnetctl.8 has a ".SS CMD" section under COMMANDS that names every
#     one of its long options;
#   - completion/lnetctl completes the command's words and, after "--",
#     every one of its long options (bash runs the real completion function).
# Also: lnetd(8) names every option of `lnetd --help` and every method and
# property of the D-Bus contract (schema/org.lnetd1.Manager.xml); every
# global of engine/globals.c is in lnetctl(8), lnet.conf(5) and the
# completion; every NI tunable of engine/tunables.h is in lnet.conf(5) and
# lnetd(8) (its YAML and D-Bus key); lnetctl(8)'s EXIT STATUS lists the codes of lnetctl/lnetctl.h;
# and each page formats without a warning (groff -ww, else man --warnings;
# skipped when neither is installed).
#
# Environment: TOP_SRCDIR (the source tree; default: this script's parent),
# LNETCTL and LNETD (default: lnetctl/lnetctl and lnetd/lnetd in the
# current, build, directory).

TOP_SRCDIR=${TOP_SRCDIR:-$(cd "$(dirname "$0")/.." && pwd)}
LNETCTL=${LNETCTL:-lnetctl/lnetctl}
LNETD=${LNETD:-lnetd/lnetd}
MAN=$TOP_SRCDIR/man
COMPLETION=$TOP_SRCDIR/completion/lnetctl

n=0
ok() { n=$((n + 1)); echo "ok $n - $*"; }
not_ok() { n=$((n + 1)); echo "not ok $n - $*"; }
skip() { n=$((n + 1)); echo "ok $n # SKIP $*"; }
diag() { printf '%s\n' "$@" | sed 's/^/# /'; }

if [ ! -x "$LNETCTL" ]; then
	echo "1..0 # SKIP $LNETCTL is not built"
	exit 0
fi

T=$(mktemp -d "${TMPDIR:-/tmp}/check-docs.XXXXXX") || exit 99
trap 'rm -rf "$T"' EXIT

# A page as plain text for searching: roff escapes for '-', fonts and
# zero-width characters removed.
plain() {
	sed -e 's/\\-/-/g' -e 's/\\f[BIRP]//g' -e 's/\\f(..//g' -e 's/\\&//g' \
		-e 's/\\(aq/'"'"'/g' -e 's/\\e/\\/g' "$1"
}

# section FILE SH SS: the lines of ".SS SS" inside ".SH SH" (SS empty: the
# whole .SH), from the plain text.
section() {
	plain "$1" | awk -v sh="$2" -v ss="$3" '
		function title(s) { sub(/^\.S[HS][ \t]+/, "", s); gsub(/"/, "", s); return s }
		/^\.SH/ { insh = (title($0) == sh); inss = insh && ss == ""; next }
		/^\.SS/ { if (insh && ss != "") inss = (title($0) == ss); next }
		inss'
}

# has_opt TEXTFILE OPTION: OPTION appears as a whole option name.
has_opt() {
	grep -Eq -- "$2([^a-z0-9_-]|\$)" "$1"
}

# --- lnetctl: commands and options ----------------------------------------

"$LNETCTL" --help >"$T/help" 2>&1
awk -F '  +' '/^Commands:/ { on = 1; next } on && /^  [a-z]/ { print $2 }' "$T/help" \
	>"$T/commands"
if [ -s "$T/commands" ]; then
	ok "lnetctl --help lists $(wc -l <"$T/commands") commands"
else
	not_ok "lnetctl --help lists the commands"
	diag "$(cat "$T/help")"
fi

have_bash=
command -v bash >/dev/null 2>&1 && have_bash=yes

# complete WORD...: what the completion offers for the last word.
complete_words() {
	bash -c '. "$1" || exit 1; shift
		COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1))
		COMP_LINE="$*"; COMP_POINT=${#COMP_LINE}
		_lnetctl; printf "%s\n" "${COMPREPLY[@]}"' _ "$COMPLETION" lnetctl "$@"
}

while IFS= read -r cmd; do
	# shellcheck disable=SC2086 # a command is one or two words
	"$LNETCTL" $cmd --help >"$T/cmdhelp" 2>&1
	awk -F '  +' '/^Options:/ { on = 1; next } on { print $2 }' "$T/cmdhelp" |
		grep -Eo -- '--[a-z0-9-]+' | grep -vx -- '--help' >"$T/opts"

	# The manual: a section of its own, naming each option.
	section "$MAN/lnetctl.8" COMMANDS "$cmd" >"$T/block"
	missing=
	if [ ! -s "$T/block" ]; then
		missing=" (no .SS $cmd under COMMANDS)"
	else
		while IFS= read -r o; do
			has_opt "$T/block" "$o" || missing="$missing $o"
		done <"$T/opts"
	fi
	if [ -z "$missing" ]; then
		ok "lnetctl.8 documents '$cmd' and its $(wc -l <"$T/opts") options"
	else
		not_ok "lnetctl.8 documents '$cmd': missing$missing"
	fi

	# The completion: the command's words, then its options after "--".
	if [ -z "$have_bash" ]; then
		skip "completion of '$cmd': no bash"
		continue
	fi
	missing=
	# shellcheck disable=SC2086 # split the command into its words
	set -- $cmd
	if [ $# -eq 2 ]; then
		complete_words "" >"$T/c1"
		complete_words "$1" "" >"$T/c2"
		grep -qx -- "$1" "$T/c1" || missing="$missing (word '$1')"
		grep -qx -- "$2" "$T/c2" || missing="$missing (word '$2')"
		complete_words "$1" "$2" -- >"$T/copts"
	else
		complete_words "" >"$T/c1"
		grep -qx -- "$1" "$T/c1" || missing="$missing (word '$1')"
		complete_words "$1" -- >"$T/copts"
	fi
	while IFS= read -r o; do
		grep -qx -- "$o" "$T/copts" || missing="$missing $o"
	done <"$T/opts"
	if [ -z "$missing" ]; then
		ok "completion/lnetctl completes '$cmd' and its options"
	else
		not_ok "completion/lnetctl completes '$cmd': missing$missing"
	fi
done <"$T/commands"

# --- globals, exit codes ------------------------------------------------------

sed -n 's/^[[:space:]]*\[LNE_G_[A-Z_]*\] = {"\([a-z_]*\)".*/\1/p' \
	"$TOP_SRCDIR/engine/globals.c" >"$T/globals"
section "$MAN/lnetctl.8" COMMANDS set >"$T/set"
plain "$MAN/lnet.conf.5" >"$T/conf5"
missing=
[ -s "$T/globals" ] || missing=" (no globals found in engine/globals.c)"
while IFS= read -r g; do
	grep -qw -- "$g" "$T/set" || missing="$missing $g(lnetctl.8)"
	grep -qw -- "$g" "$T/conf5" || missing="$missing $g(lnet.conf.5)"
	if [ -n "$have_bash" ]; then
		complete_words set "" | grep -qx -- "$g" || missing="$missing $g(completion)"
	fi
done <"$T/globals"
if [ -z "$missing" ]; then
	ok "every global of globals.c is documented and completed"
else
	not_ok "globals:$missing"
fi

sed -n 's/^[[:space:]]*X([A-Z_]*, \([a-z_]*\),.*/\1/p' \
	"$TOP_SRCDIR/engine/tunables.h" >"$T/tunables"
plain "$MAN/lnetd.8" >"$T/lnetd8"
missing=
[ -s "$T/tunables" ] || missing=" (no tunables found in engine/tunables.h)"
while IFS= read -r t; do
	grep -qw -- "$t" "$T/conf5" || missing="$missing $t(lnet.conf.5)"
	grep -qw -- "$t" "$T/lnetd8" || missing="$missing $t(lnetd.8)"
done <"$T/tunables"
if [ -z "$missing" ]; then
	ok "every NI tunable of tunables.h is documented"
else
	not_ok "tunables:$missing"
fi

sed -n 's/^[[:space:]]*EXIT_[A-Z]* = \([0-9]*\),.*/\1/p' "$TOP_SRCDIR/lnetctl/lnetctl.h" |
	sort -n >"$T/codes"
section "$MAN/lnetctl.8" "EXIT STATUS" "" | sed -n 's/^\.B \([0-9][0-9]*\)$/\1/p' |
	sort -n >"$T/mancodes"
if [ -s "$T/codes" ] && cmp -s "$T/codes" "$T/mancodes"; then
	ok "lnetctl.8 EXIT STATUS lists the codes of lnetctl.h"
else
	not_ok "lnetctl.8 EXIT STATUS lists the codes of lnetctl.h"
	diag "lnetctl.h: $(tr '\n' ' ' <"$T/codes")" "lnetctl.8: $(tr '\n' ' ' <"$T/mancodes")"
fi

# --- lnetd: options and the D-Bus contract ----------------------------------------

plain "$MAN/lnetd.8" >"$T/lnetd8"
if [ -x "$LNETD" ]; then
	missing=
	for o in $("$LNETD" --help 2>&1 | grep -Eo -- '--[a-z0-9-]+' | sort -u); do
		has_opt "$T/lnetd8" "$o" || missing="$missing $o"
	done
	if [ -z "$missing" ]; then
		ok "lnetd.8 documents every option of lnetd --help"
	else
		not_ok "lnetd.8 documents every option of lnetd --help: missing$missing"
	fi
else
	skip "lnetd options: $LNETD is not built"
fi

awk '/<interface name="org.lnetd1.Manager">/ { on = 1 } /<\/interface>/ { on = 0 }
	on && /<(method|property) name="/ { sub(/.*name="/, ""); sub(/".*/, ""); print }' \
	"$TOP_SRCDIR/schema/org.lnetd1.Manager.xml" >"$T/members"
missing=
[ -s "$T/members" ] || missing=" (no methods found in the XML)"
while IFS= read -r m; do
	grep -qw -- "$m" "$T/lnetd8" || missing="$missing $m"
done <"$T/members"
if [ -z "$missing" ]; then
	ok "lnetd.8 describes every method and property of org.lnetd1.Manager"
else
	not_ok "lnetd.8 describes org.lnetd1.Manager: missing$missing"
fi

# --- claims the programs contradict -------------------------------------------------

# clauses FILE: the page as plain running text, one clause a line (macros'
# names and quotes dropped, split at sentence ends, ';' and ':'), lowercase.
clauses() {
	plain "$1" | awk '
		/^\.(SH|SS|PP|TP|IP|RS|RE|EX|EE|P|LP|br)([ \t]|$)/ { print "."; next }
		/^\.\\"/ { next }
		/^\.[A-Za-z]+/ { sub(/^\.[A-Za-z]+[ \t]*/, ""); gsub(/"/, "") }
		{ print }' | tr '\n' ' ' | sed -e 's/\([.;:]\) /\1\n/g' | tr '[:upper:]' '[:lower:]'
}
clauses "$MAN/lnetctl.8" >"$T/clauses"
clauses "$MAN/lnetd.8" >>"$T/clauses"

# A command lnetctl has is never called missing: no clause saying something is
# not here, is not, does not exist here or is not implemented names one (its
# full name, or a family's first word: "debug", "fault").
{
	cat "$T/commands"
	cut -d' ' -f1 "$T/commands"
} | sort -u >"$T/names"
grep -E "(is|are) not (here|available|supported|in lnetctl)|(is|are) not[.;:]?\$|(do|does) not exist (here|in lnetctl|in lnetd)|not (yet )?implemented" \
	"$T/clauses" >"$T/absent"
missing=
while IFS= read -r c; do
	if grep -Eq "(^|[^a-z_-])$c([^a-z_-]|\$)" "$T/absent"; then
		missing="$missing '$c'"
		diag "$(grep -E "(^|[^a-z_-])$c([^a-z_-]|\$)" "$T/absent" | head -n 2)"
	fi
done <"$T/names"
if [ -s "$T/names" ] && [ -z "$missing" ]; then
	ok "no page calls a command lnetctl has missing"
else
	not_ok "a page calls commands lnetctl has missing:$missing"
fi

# NRS TBF requests are scheduled: by lnetk's request sources (kernel/nrs.c) and
# the userspace engine's test service (lnetd/backend/userspace/dp-svc.c).
if [ -f "$TOP_SRCDIR/kernel/nrs.c" ] || [ -f "$TOP_SRCDIR/lnetd/backend/userspace/dp-svc.c" ]; then
	if grep -E "(does|do) not schedule|schedules? (nothing|no )|nothing feeds requests" \
		"$T/clauses" >"$T/tbfclaim"; then
		not_ok "no page says TBF requests go unscheduled (the engines schedule them)"
		diag "$(cat "$T/tbfclaim")"
	else
		ok "no page says TBF requests go unscheduled (the engines schedule them)"
	fi
else
	skip "TBF scheduling claims: no engine here schedules requests"
fi

# "Run time only" is said of an option, never of a whole command whose other
# options change the configuration ("net set" with a tunable does): a clause
# calling a command's effect run-time only names the option it means.
grep -E "run[ -]?time only|not part of the configuration" "$T/clauses" >"$T/runtime"
missing=
while IFS= read -r c; do
	case $c in *" "*) ;; *) continue ;; esac
	if grep -E "(^|[^a-z_-])$c([^a-z_-]|\$)" "$T/runtime" | grep -qv -- "--[a-z]"; then
		missing="$missing '$c'"
		diag "$(grep -E "(^|[^a-z_-])$c([^a-z_-]|\$)" "$T/runtime" | head -n 2)"
	fi
done <"$T/commands"
if [ -z "$missing" ]; then
	ok "run-time-only claims name their option, not a whole command"
else
	not_ok "run-time-only claims about whole commands:$missing"
fi

# --- README's map of the tree ------------------------------------------------------

# Every folder of the tree, and of lnetd/backend/ and tests/, is in README.md's
# map as `NAME/` (a tarball has no README.md: skipped).
if [ -r "$TOP_SRCDIR/README.md" ]; then
	missing=
	for d in "$TOP_SRCDIR"/*/ "$TOP_SRCDIR"/lnetd/backend/*/ "$TOP_SRCDIR"/tests/*/; do
		d=${d%/}
		d=${d##*/}
		case $d in build* | autom4te.cache | m4 | \*) continue ;; esac
		grep -qF "\`$d/\`" "$TOP_SRCDIR/README.md" || missing="$missing $d/"
	done
	if [ -z "$missing" ]; then
		ok "README.md's map names every folder of the tree"
	else
		not_ok "README.md's map misses:$missing"
	fi
else
	skip "README.md's map: no README.md here (a tarball)"
fi

# --- every page formats cleanly ---------------------------------------------------

for page in lnetctl.8 lnetd.8 lnet.conf.5; do
	if command -v groff >/dev/null 2>&1; then
		groff -man -ww -z -Tutf8 "$MAN/$page" >"$T/warn" 2>&1
	elif command -v man >/dev/null 2>&1; then
		man --warnings -l "$MAN/$page" 2>&1 >/dev/null | grep -v '^$' >"$T/warn"
	else
		skip "$page formats cleanly: neither groff nor man is installed"
		continue
	fi
	if [ -s "$T/warn" ]; then
		not_ok "$page formats cleanly"
		diag "$(cat "$T/warn")"
	else
		ok "$page formats cleanly"
	fi
done

echo "1..$n"
