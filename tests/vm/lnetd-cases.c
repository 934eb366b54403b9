// SPDX-License-Identifier: GPL-2.0
/*
 * lnetd-cases.c - lnetd-test's cases on the small configuration: LNet
 * configured through lnetctl (or busctl), TBF and explanations through
 * lnetd, and the module worked behind lnetd's back (changes, drift, a
 * flood, refusals, kill -9, rmmod and insmod, health).
 */
#define _GNU_SOURCE
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <systemd/sd-bus.h>

#include "lnetd-test.h"

/* --- configuring through lnetctl (or busctl) ------------------------------------------- */

#define BUSCTL "busctl --timeout=300 call org.lnetd1 /org/lnetd1 org.lnetd1.Manager "

struct step {
	const char *lnetctl, *busctl;
};

static int steps(const struct step *s, size_t n)
{
	size_t i;
	int rc = 0;

	for (i = 0; !rc && i < n; i++)
		rc = have_lnetctl
			     ? sh("lnetctl %s >/tmp/lnetctl.out 2>&1 || { cat /tmp/lnetctl.out; "
				  "false; }",
				  s[i].lnetctl)
			     : sh(BUSCTL "%s >/tmp/busctl.out 2>&1 || { cat /tmp/busctl.out; "
					 "false; }",
				  s[i].busctl);
	return rc;
}

/* Interfaces c0..c3 on 172.16.k.1/24; c3 stays unconfigured until a case adds it. */
void case_configure(void)
{
	static const struct step add[] = {
		{"net add --net tcp --if c0", "AddNI ssa{sv} tcp c0 0"},
		{"net add --net o2ib1 --if c1,c2 --peer-credits 16",
		 "Apply a(ssa{sv})b 2 add net 3 net s o2ib1 interface s c1 peer_credits u 16 add "
		 "net 3 net s o2ib1 interface s c2 peer_credits u 16 false"},
		{"peer add --prim_nid 10.1.0.1@tcp --nid 10.1.0.2@tcp,10.1.0.3@tcp",
		 "AddPeer sasa{sv} 10.1.0.1@tcp 2 10.1.0.2@tcp 10.1.0.3@tcp 1 multi_rail b true"},
		{"peer add --prim_nid 10.2.0.1@o2ib1 --nid 10.2.0.2@o2ib1 --non_mr",
		 "AddPeer sasa{sv} 10.2.0.1@o2ib1 1 10.2.0.2@o2ib1 1 multi_rail b false"},
		{"peer add --prim_nid 10.3.0.1@tcp",
		 "AddPeer sasa{sv} 10.3.0.1@tcp 0 1 multi_rail b true"},
		{"route add --net o2ib9 --gateway 10.1.0.2@tcp",
		 "AddRoute ssa{sv} o2ib9 10.1.0.2@tcp 0"},
		{"route add --net tcp7 --gateway 10.2.0.9@o2ib1 --hop 2 --priority 3",
		 "AddRoute ssa{sv} tcp7 10.2.0.9@o2ib1 2 hops u 2 priority u 3"},
		{"udsp add --src o2ib1 --priority 1",
		 "AddRule sssa{sv} o2ib1 '' '' 1 priority u 1"},
		{"udsp add --dst tcp --priority 2", "AddRule sssa{sv} '' tcp '' 1 priority u 2"},
		{"udsp add --src 172.16.[1-2].1@o2ib1 --dst 10.2.0.[1-2]@o2ib1",
		 "AddRule sssa{sv} 172.16.[1-2].1@o2ib1 10.2.0.[1-2]@o2ib1 '' 0"},
		{"udsp add --dst 10.1.0.1@tcp --priority 0 --idx 1",
		 "AddRule sssa{sv} '' 10.1.0.1@tcp '' 2 priority u 0 idx u 1"},
		{"set max_interfaces 300", "SetGlobal su max_interfaces 300"},
		{"set transaction_timeout 10", "SetGlobal su transaction_timeout 10"},
		{"set retry_count 5", "SetGlobal su retry_count 5"},
	};
	int rc = steps(add, N_OF(add));

	tap(!rc && agree("after configuring", false),
	    "NIs, peers, routes, rules and globals configured through %s: the module holds "
	    "exactly what lnetd lists",
	    have_lnetctl ? "lnetctl" : "busctl");
	if (!have_lnetctl)
		return;
	/* sanity-lnet 100 and 105 with the kernel engine: the route's gateway is a peer. */
	rc = sh("lnetctl peer show --nid 10.2.0.9@o2ib1 >/tmp/gw.out 2>&1 && "
		"grep -q 'Multi-Rail: False' /tmp/gw.out && "
		"grep -Eq 'state: (up|down)$' /tmp/gw.out && lnetctl export >/tmp/gw.out 2>&1 && "
		"grep -q 'primary nid: 10.2.0.9@o2ib1' /tmp/gw.out && "
		"! lnetctl peer add --prim_nid 10.2.0.9@o2ib1 >/tmp/gw.out 2>&1 || "
		"{ cat /tmp/gw.out; false; }");
	tap(!rc && agree("after refusing to add the gateway", false),
	    "a route's gateway is a peer with the kernel engine: peer show and export list it "
	    "(Multi-Rail False, its state watched: up or down, not NA), peer add of it is "
	    "refused, and the module holds what lnetd lists");
}

/* A reg rule's statistics in the module: how many requests it let through, or -1. */
struct rule_count {
	const char *rule;
	int64_t dispatched;
};

static int rule_count_cb(const struct lnetk_tbf *t, void *arg)
{
	struct rule_count *rc = arg;
	size_t q, i;

	for (q = 0; q < t->nqueues; q++)
		for (i = 0; i < t->queues[q].nrules; i++)
			if (t->queues[q].queue == LNETK_TBF_REG &&
			    !strcmp(t->queues[q].rules[i].name, rc->rule))
				rc->dispatched = (int64_t)t->queues[q].rules[i].dispatched;
	return 0;
}

static int64_t dispatched(struct lnetk *lk, const char *service, const char *rule)
{
	struct rule_count c = {rule, -1};

	return lnetk_tbf_get(lk, service, rule_count_cb, &c, NULL) ? -1 : c.dispatched;
}

/*
 * A policy a request source holds (tests/vm/nrs-src, lnetk_nrs_src.ko with
 * hold=1) cannot be deleted in the module: lnetd commits the delete, Status
 * says why the module does not follow, and once the source lets go
 * (rmmod) lnetd tries again by itself and the module follows.
 */
static void case_tbf_held(void)
{
	char src[512], why[512];
	const char *slash = strrchr(ko, '/');
	int rc, pending = -1;
	double t0, t = -1;

	snprintf(src, sizeof(src), "%.*s/lnetk_nrs_src.ko", slash ? (int)(slash - ko) : 1,
		 slash ? ko : ".");
	if (!have_lnetctl || access(src, F_OK)) {
		printf("ok - a TBF policy a source holds # SKIP it needs lnetctl and %s\n", src);
		return;
	}
	rc = sh("lnetctl tbf policy set --service held --type nid >/tmp/held.out 2>&1 || "
		"{ cat /tmp/held.out; false; }") ?:
		     sh("insmod %s service=held nids=10.7.0.1@tcp ms=20 hold=1", src) ?:
		     sh("lnetctl tbf del --service held");
	t0 = now();
	while (!rc && (pending = module_pending(why, sizeof(why))) == 0 &&
	       now() - t0 < WAIT_S * slow)
		usleep(10000);
	tap(!rc && pending > 0 && strstr(why, "holds this policy"),
	    "a TBF policy a request source holds: lnetd deletes it, and Status says why the module "
	    "keeps it (%s)",
	    pending > 0 ? why : "no module row");
	rc = rc ?: sh("rmmod lnetk_nrs_src");
	t0 = now();
	while (!rc && (pending = module_pending(why, sizeof(why))) != 0 &&
	       now() - t0 < WAIT_S * slow)
		usleep(50000);
	if (!rc && !pending)
		t = now() - t0;
	tap(!rc && !pending && agree("after the source let go", false),
	    "once the source lets go, lnetd tries again by itself: the module deletes the policy "
	    "(%.2f s) and Status says applied",
	    t);
}

/*
 * NRS TBF policies through lnetctl reach the module (the comparison covers
 * them: every later case checks them too), a rule that stays keeps its
 * statistics across changes around it, tbf show reports the module's
 * traffic, and changes behind lnetd's back are undone.
 */
void case_tbf(void)
{
	static const struct step add[] = {
		{"tbf policy set --service ost_io --type nid --depth 8",
		 "TbfSetPolicy ssa{sv} ost_io '' 2 type s nid depth u 8"},
		{"tbf rule --service ost_io \"start a nid={10.0.0.[1-4]@tcp} rate=100\"",
		 "TbfCommand ss ost_io 'start a nid={10.0.0.[1-4]@tcp} rate=100'"},
		{"tbf rule --service ost_io \"reg start b nid={10.0.1.*@tcp} rate=200\"",
		 "TbfCommand ss ost_io 'reg start b nid={10.0.1.*@tcp} rate=200'"},
		{"tbf rule --service ost_io \"hp start h nid={10.0.2.1@tcp} rate=300 "
		 "realtime=1\"",
		 "TbfCommand ss ost_io 'hp start h nid={10.0.2.1@tcp} rate=300 realtime=1'"},
		{"tbf policy set --service mdt --queue reg --type jobid+uid",
		 "TbfSetPolicy ssa{sv} mdt reg 1 type s jobid+uid"},
		{"tbf rule --service mdt \"reg start j jobid={dd.*}&uid={500} rate=50\"",
		 "TbfCommand ss mdt 'reg start j jobid={dd.*}&uid={500} rate=50'"},
	};
	static const struct step around[] = {
		{"tbf rule --service ost_io \"reg change b rate=250 rank=default\"",
		 "TbfCommand ss ost_io 'reg change b rate=250 rank=default'"},
		{"tbf rule --service ost_io \"reg start c nid={10.0.3.1@tcp} rate=7 "
		 "rank=default\"",
		 "TbfCommand ss ost_io 'reg start c nid={10.0.3.1@tcp} rate=7 rank=default'"},
		{"tbf rule --service ost_io \"hp stop a\"", "TbfCommand ss ost_io 'hp stop a'"},
		{"tbf rule --service ost_io \"reg change default rate=77\"",
		 "TbfCommand ss ost_io 'reg change default rate=77'"},
		{"tbf policy set --service mdt --queue reg --type jobid+uid+opcode --depth 5",
		 "TbfSetPolicy ssa{sv} mdt reg 2 type s jobid+uid+opcode depth u 5"},
	};
	struct lnetk_tbf_load_class lc = {.nid = "10.0.0.1@tcp", .queue = LNETK_TBF_REG};
	struct lnetk *lk = open_or_fail("tbf");
	int64_t before, after;
	struct lnetk_err err;
	double t0, t;
	int rc;

	if (!lk)
		return;
	rc = steps(add, N_OF(add));
	tap(!rc && agree("after the TBF policies", false),
	    "two TBF policies (types, depths, rules on reg and hp) set through %s: the module "
	    "runs exactly what lnetd stores",
	    have_lnetctl ? "lnetctl" : "busctl");

	rc = lnetk_tbf_load(lk, "ost_io", 200, &lc, 1, NULL, &err);
	before = dispatched(lk, "ost_io", "a");
	rc = rc ?: steps(around, N_OF(around));
	after = dispatched(lk, "ost_io", "a");
	tap(!rc && before > 0 && after == before && agree("after the TBF changes", false),
	    "rules moved, started, stopped and re-rated and a queue retyped around rule a: the "
	    "module follows, and a keeps its statistics (%lld requests before, %lld after; %s)",
	    (long long)before, (long long)after, errname(rc));

	if (have_lnetctl) {
		rc = sh("lnetctl tbf show --service ost_io -v >/tmp/tbf.out 2>&1 && "
			"grep -q 'dispatched: %lld' /tmp/tbf.out && "
			"grep -q 'nid=10.0.0.1@tcp' /tmp/tbf.out || { cat /tmp/tbf.out; false; }",
			(long long)after);
		tap(!rc,
		    "lnetctl tbf show -v reports the module's traffic: rule a's %lld requests and "
		    "the class that sent them",
		    (long long)after);
	}

	t0 = now();
	rc = lnetk_tbf_cmd(lk, "ost_io", "reg stop b", &err) ?: lnetk_tbf_del(lk, "mdt", &err)
	     ?: lnetk_tbf_set(lk, "stranger", -1, NULL, 0, &err);
	t = rc ? -1 : converge(WAIT_S * slow);
	if (t >= 0)
		t = now() - t0;
	tap(!rc && t >= 0 && agree("after TBF drift", false),
	    "a TBF rule stopped, a policy deleted and another made behind lnetd's back are undone "
	    "by lnetd on their announcements (in %.2f s; %s %s)",
	    t, errname(rc), err.msg);
	lnetk_close(lk);
	case_tbf_held();
}

/*
 * 40 random rule commands on both queues of one policy (start with and
 * without rank=, change rate and rank, stop, the default's rate, depth),
 * each through lnetctl, and the module must equal lnetd after each; then
 * one change (an import) that stops every reg rule, one of them testing
 * opcode, and drops opcode from the type, which the module takes only in
 * that order.
 */
void case_tbf_random(void)
{
	char cmd[256], name[2][64][8];
	unsigned int seed = 7, k = 0;
	int n[2] = {0, 0}, i, j, bad = 0, rc;

	if (!have_lnetctl) {
		printf("ok - random TBF commands # SKIP they need lnetctl\n");
		return;
	}
	rc = sh("lnetctl tbf policy set --service rnd --depth 4 >/tmp/rnd.out 2>&1 || "
		"{ cat /tmp/rnd.out; false; }");
	for (i = 0; !rc && i < 40; i++) {
		int q = (int)(rand_r(&seed) % 2), op = (int)(rand_r(&seed) % 6);
		const char *qn = q ? "hp" : "reg";
		const char *rank = n[q] && rand_r(&seed) % 2 ? name[q][rand_r(&seed) % n[q]]
							     : "default";

		if (op <= 1 || !n[q]) {
			if (n[q] == 64)
				continue;
			snprintf(name[q][n[q]], sizeof(name[q][0]), "r%u", k++);
			snprintf(cmd, sizeof(cmd), "%s start %s nid={10.9.%u.*@tcp} rate=%u%s%s",
				 qn, name[q][n[q]], k, 10 + rand_r(&seed) % 1000,
				 op ? " rank=" : "", op ? rank : "");
			n[q]++;
		} else if (op == 2) {
			j = (int)(rand_r(&seed) % (unsigned int)n[q]);
			snprintf(cmd, sizeof(cmd), "%s change %s rate=%u", qn, name[q][j],
				 10 + rand_r(&seed) % 1000);
		} else if (op == 3) {
			j = (int)(rand_r(&seed) % (unsigned int)n[q]);
			if (!strcmp(name[q][j], rank))
				continue;
			snprintf(cmd, sizeof(cmd), "%s change %s rank=%s", qn, name[q][j], rank);
		} else if (op == 4) {
			j = (int)(rand_r(&seed) % (unsigned int)n[q]);
			snprintf(cmd, sizeof(cmd), "%s stop %s", qn, name[q][j]);
			memmove(name[q][j], name[q][j + 1],
				(size_t)(n[q] - j - 1) * sizeof(name[q][0]));
			n[q]--;
		} else {
			snprintf(cmd, sizeof(cmd), "%s change default rate=%u", qn,
				 1 + rand_r(&seed) % 20000);
		}
		rc = sh("lnetctl tbf rule --service rnd \"%s\" >/tmp/rnd.out 2>&1 || "
			"{ cat /tmp/rnd.out; false; }",
			cmd);
		if (!rc && i % 8 == 7)
			rc = sh("lnetctl tbf policy set --service rnd --queue %s --depth %u "
				">/tmp/rnd.out 2>&1 || { cat /tmp/rnd.out; false; }",
				qn, 1 + rand_r(&seed) % 50);
		if (!rc && !agree(cmd, false))
			bad++;
	}
	tap(!rc && !bad,
	    "40 random TBF rule commands through lnetctl: after each the module runs exactly what "
	    "lnetd stores (%d differed; %s)",
	    bad, rc ? "a command failed" : "all taken");

	rc = sh("lnetctl tbf policy set --service rnd --queue reg --type nid+opcode && "
		"lnetctl tbf rule --service rnd 'reg start op nid={10.8.0.*@tcp}&opcode={ost_read} "
		"rate=9' && printf 'tbf:\\n- service: rnd\\n  queue: reg\\n  type: nid\\n  "
		"rules: []\\n' >/tmp/rnd.yaml && lnetctl import /tmp/rnd.yaml >/tmp/rnd.out 2>&1 || "
		"{ cat /tmp/rnd.out; false; }");
	tap(!rc && agree("after the retype", false),
	    "one import that stops every reg rule, one on opcode, and drops opcode from the type: "
	    "the module takes the stops first, then the type, and equals lnetd");
	rc = sh("lnetctl tbf del --service rnd");
	tap(!rc && agree("after deleting rnd", false),
	    "deleting the policy through lnetctl deletes it in the module");
}

/*
 * With the kernel engine, explain asks the module, which decides on its
 * running state: an NI whose health traffic lowered there (here: set
 * behind lnetd's back) loses on health, though lnetd's mirror still has
 * it at full health; and the shows report the module's health.
 */
void case_explain_module(void)
{
	struct lnetk_ni set = {.has = LNETK_HAS_NI_HEALTH, .nid = "172.16.1.1@o2ib1", .health = 10};
	struct lnetk_peer_ni pset = {
		.has = LNETK_HAS_PNI_HEALTH, .nid = "10.5.0.1@o2ib1", .health = 77};
	struct lnetk *lk = open_or_fail("explain");
	int rc;

	if (!lk)
		return;
	if (!have_lnetctl) {
		printf("ok - explain from the module # SKIP it needs lnetctl\n");
		lnetk_close(lk);
		return;
	}
	rc = sh("lnetctl peer add --prim_nid 10.5.0.1@o2ib1 >/tmp/ex.out 2>&1 || "
		"{ cat /tmp/ex.out; false; }")
		     ?: lnetk_ni_set(lk, &set, NULL);
	rc = rc
		     ?: sh("lnetctl explain --dst 10.5.0.1@o2ib1 >/tmp/ex.out 2>&1 && "
			   "grep -q 'local ni: 172.16.2.1@o2ib1' /tmp/ex.out && "
			   "grep -A1 'nid: 172.16.1.1@o2ib1' /tmp/ex.out | grep -q 'lost on health' || "
			   "{ cat /tmp/ex.out; false; }");
	tap(!rc,
	    "lnetctl explain with the kernel engine asks the module: an NI whose health is low "
	    "there loses on health, whatever lnetd's mirror holds");
	rc = lnetk_peer_ni_set(lk, &pset, NULL)
		     ?: sh("lnetctl net show -v --net o2ib1 >/tmp/ex.out 2>&1 && "
			   "grep -A40 'nid: 172.16.1.1@o2ib1' /tmp/ex.out | grep -q 'health value: 10$' "
			   "&& lnetctl peer show -v --nid 10.5.0.1@o2ib1 >/tmp/ex.out 2>&1 && "
			   "grep -q 'health value: 77$' /tmp/ex.out || { cat /tmp/ex.out; false; }");
	tap(!rc, "net show -v and peer show -v show the health the module runs with (10 and 77)");
	set.health = 1000;
	pset.health = 1000;
	rc = lnetk_ni_set(lk, &set, NULL) ?: lnetk_peer_ni_set(lk, &pset, NULL)
	     ?: sh("lnetctl peer del --prim_nid 10.5.0.1@o2ib1");
	tap(!rc && converge(WAIT_S * slow) >= 0, "and puts things back (%s)", errname(rc));
	lnetk_close(lk);
}

/* Both in one change: the backend must find the order the module takes them in. */
static int apply_globals(uint32_t timeout, uint32_t retries)
{
	sd_bus_error e = SD_BUS_ERROR_NULL;
	sd_bus_message *reply = NULL;
	int rc;

	/* In the order lnetd's engine takes them; the module's engine then sees retry_count
	 * first (enum order), which it refuses until transaction_timeout has been raised. */
	rc = sd_bus_call_method(bus, MANAGER, "Apply", &e, &reply, "a(ssa{sv})b", 2, "set",
				"global", 2, "name", "s", "transaction_timeout", "value", "u",
				timeout, "set", "global", 2, "name", "s", "retry_count", "value",
				"u", retries, 0);
	if (rc < 0)
		diag("Apply of two globals: %s", e.message ?: strerror(-rc));
	sd_bus_error_free(&e);
	sd_bus_message_unref(reply);
	return rc < 0 ? rc : 0;
}

/* @n peers 10.5.x.y@tcp with a second NID 10.6.x.y@tcp, in one Apply. */
static int apply_peers(unsigned int n)
{
	sd_bus_error e = SD_BUS_ERROR_NULL;
	sd_bus_message *m = NULL, *reply = NULL;
	char a[32], b[32];
	unsigned int i;
	int rc;

	rc = sd_bus_message_new_method_call(bus, &m, MANAGER, "Apply");
	if (rc >= 0)
		rc = sd_bus_message_open_container(m, 'a', "(ssa{sv})");
	for (i = 0; rc >= 0 && i < n; i++) {
		snprintf(a, sizeof(a), "10.5.%u.%u@tcp", i / 256, i % 256);
		snprintf(b, sizeof(b), "10.6.%u.%u@tcp", i / 256, i % 256);
		rc = sd_bus_message_append(m, "(ssa{sv})", "add", "peer", 2, "primary", "s", a,
					   "nids", "as", 1, b);
	}
	if (rc >= 0)
		rc = sd_bus_message_close_container(m);
	if (rc >= 0)
		rc = sd_bus_message_append(m, "b", 0);
	if (rc >= 0)
		rc = sd_bus_call(bus, m, 60 * 1000000ULL, &e, &reply);
	if (rc < 0)
		diag("Apply of %u peers: %s", n, e.message ?: strerror(-rc));
	sd_bus_error_free(&e);
	sd_bus_message_unref(m);
	sd_bus_message_unref(reply);
	return rc < 0 ? rc : 0;
}

void case_change(void)
{
	static const struct step change[] = {
		{"peer del --prim_nid 10.1.0.1@tcp --nid 10.1.0.3@tcp",
		 "DeletePeer sas 10.1.0.1@tcp 1 10.1.0.3@tcp"},
		{"peer add --prim_nid 10.3.0.1@tcp --nid 10.3.0.2@tcp",
		 "AddPeer sasa{sv} 10.3.0.1@tcp 1 10.3.0.2@tcp 1 multi_rail b true"},
		{"route del --net tcp7 --gateway 10.2.0.9@o2ib1",
		 "DeleteRoute ss tcp7 10.2.0.9@o2ib1"},
		{"route add --net tcp8 --gateway 10.3.0.2@tcp --priority 1",
		 "AddRoute ssa{sv} tcp8 10.3.0.2@tcp 1 priority u 1"},
		{"udsp del --idx 2", "DeleteRule u 2"},
		{"udsp add --dst 10.3.0.[1-2]@tcp --priority 4 --idx 0",
		 "AddRule sssa{sv} '' 10.3.0.[1-2]@tcp '' 2 priority u 4 idx u 0"},
		{"net add --net tcp --if c3", "AddNI ssa{sv} tcp c3 0"},
	};
	int rc = steps(change, N_OF(change)) ?: apply_globals(30, 20), batches;

	tap(!rc && agree("after changes", false),
	    "after deleting a peer NID, a route and a rule, inserting a rule at idx 0, adding NIDs, "
	    "a route and an NI, and raising transaction_timeout and retry_count in one change "
	    "(the module must take them in the right order), the module still holds what lnetd "
	    "lists");

	/* Many additions at once go in one batch, added to what the module holds. */
	batches = log_count("module took a batch");
	rc = apply_peers(200);
	tap(!rc && log_count("module took a batch") == batches + 1 &&
		    agree("after 200 peers in one change", false),
	    "200 peers added in one change reach the module in one batch added to its state");

	/* NIs follow their interfaces: down, gone, back. */
	rc = sh("ip link set c2 down && ip link del c3");
	tap(!rc && converge(WAIT_S * slow) >= 0 && agree("after c2 down, c3 gone", false),
	    "an interface going down and another vanishing reach the module (link state, NI "
	    "deleted)");
	rc = sh("ip link set c2 up && ip link add c3 type dummy && ip addr add 172.16.3.1/24 dev "
		"c3 && ip link set c3 up");
	tap(!rc && converge(WAIT_S * slow) >= 0 && agree("after c2 up, c3 back", false),
	    "and coming back reaches it too");
}

/* Someone else changes the module: lnetd puts it back. */
void case_drift(void)
{
	const char *stranger[] = {"10.9.9.10@tcp"};
	struct lnetk *lk = open_or_fail("drift");
	double t0, t;
	int rc;

	if (!lk)
		return;
	t0 = now();
	rc = lnetk_peer_del(lk, "10.2.0.1@o2ib1", NULL, 0, NULL);
	if (rc)
		diag("deleting peer 10.2.0.1@o2ib1 behind lnetd's back: %s", errname(rc));
	else
		rc = lnetk_peer_add(lk, "10.9.9.9@tcp", true, stranger, 1, NULL)
			     ?: lnetk_rule_del(lk, 0, NULL);
	t = converge(WAIT_S * slow);
	if (t >= 0)
		t = now() - t0;
	diag("the module repaired %.3f s after three changes behind lnetd's back", t);
	tap(!rc && t >= 0 && agree("after drift", false),
	    "a peer deleted, a stranger peer added and a rule deleted behind lnetd's back are "
	    "undone by lnetd on their announcements (in %.2f s)",
	    t);
	lnetk_close(lk);
}

/*
 * lnetd stopped while 3,000 changes are made behind its back, the first
 * of them a rule deletion: its announcements overflow the socket, so it
 * cannot tell which were its own, and must read the module again.
 */
void case_flood(void)
{
	struct lnetk_peer_ni set = {.has = LNETK_HAS_PNI_HEALTH, .nid = "10.1.0.1@tcp"};
	struct lnetk *lk = open_or_fail("flood");
	int lost = log_count("announcements were lost"), rc, i;
	double t;

	if (!lk)
		return;
	kill(lnetd_pid, SIGSTOP);
	rc = lnetk_rule_del(lk, 0, NULL);
	for (i = 0; !rc && i < 3000; i++) {
		set.health = (uint32_t)(i % 1000);
		rc = lnetk_peer_ni_set(lk, &set, NULL);
	}
	kill(lnetd_pid, SIGCONT);
	t = converge(WAIT_S * slow);
	diag("after SIGCONT: repaired in %.3f s (%s)", t,
	     log_count("announcements were lost") > lost ? "lnetd saw its announcements lost"
							 : "no loss seen");
	tap(!rc && t >= 0 && log_count("announcements were lost") > lost &&
		    agree("after the flood", false),
	    "3,000 changes behind a stopped lnetd overflow its announcements: it reads the module "
	    "again and repairs it (%.2f s)",
	    t);
	lnetk_close(lk);
}

/*
 * A refusal: lnetd stopped, a peer with the NID an NI will have put in the
 * module behind its back, then the NI added through lnetd.  Whichever lnetd
 * sees first (the change or the announcement), the NI must end in the
 * module and the stranger out of it: a refused change stays wanted.
 */
void case_refusal(void)
{
	char *argv[] = {"/bin/sh", "-c",
			have_lnetctl ? "lnetctl net add --net tcp --if c4"
				     : BUSCTL "AddNI ssa{sv} tcp c4 0",
			NULL};
	int refused = log_count("lnetk module refused"), rc, status = -1;
	struct lnetk *lk = open_or_fail("refusal");
	char why[512] = "";
	pid_t pid;
	double t;

	if (!lk)
		return;
	rc = sh("ip link add c4 type dummy && ip addr add 172.16.4.1/24 dev c4 && ip link set c4 "
		"up");
	/* The interface must be seen before lnetd stops. */
	usleep(300000);
	kill(lnetd_pid, SIGSTOP);
	rc = rc ?: lnetk_peer_add(lk, "172.16.4.1@tcp", true, NULL, 0, NULL);
	pid = spawn("/tmp/refusal.out", argv);
	usleep(300000);
	kill(lnetd_pid, SIGCONT);
	waitpid(pid, &status, 0);
	t = converge(WAIT_S * slow);
	module_pending(why, sizeof(why));
	diag("the NI went in %.3f s after SIGCONT; lnetd %s", t,
	     log_count("lnetk module refused") > refused ? "saw the module refuse it first"
							 : "repaired the module first");
	tap(!rc && !status && t >= 0 && !why[0] && agree("after the refusal", false),
	    "an NI whose NID someone gave a peer in the module behind lnetd's back ends in the "
	    "module, the peer out of it, and Status says applied");
	lnetk_close(lk);
}

static int pni_health(struct lnetk *lk, const char *nid)
{
	struct lnetk_peer *p;
	int h = -1;
	size_t i;

	if (lnetk_peer_get(lk, nid, &p, NULL))
		return -1;
	for (i = 0; i < p->nnis; i++)
		if (!strcmp(p->nis[i].nid, nid))
			h = (int)p->nis[i].health;
	lnetk_peer_free(p);
	return h;
}

static int ni_health(struct lnetk *lk, const char *nid)
{
	struct lnetk_ni ni;

	return lnetk_ni_get(lk, nid, &ni, NULL) ? -1 : (int)ni.health;
}

/*
 * Health set to a value is read back as that value only while nothing
 * else moves it: the module's recovery pings a local NI or peer NI below
 * 1000 (c0's NI on tcp answers itself: health back to 1000; the peer NIs
 * on tcp do not answer: each failure lowers them), and its router checker
 * pings the gateway 10.1.0.2@tcp (unanswered: lower).  Held off while a
 * case reads what it set: recovery at the longest interval there is,
 * router checks never (the module's parameter); then as they were.
 */
static int hold_running(bool hold)
{
	static const struct step held[] = {
		{"set max_recovery_ping_interval 4294967295",
		 "SetGlobal su max_recovery_ping_interval 4294967295"},
		{"set recovery_interval 4294967295", "SetGlobal su recovery_interval 4294967295"},
	};
	static const struct step let_go[] = {
		{"set recovery_interval 1", "SetGlobal su recovery_interval 1"},
		{"set max_recovery_ping_interval 900",
		 "SetGlobal su max_recovery_ping_interval 900"},
	};

	return sh("echo %d >/sys/module/lnetk/parameters/alive_router_check_interval",
		  hold ? 0 : 60) ?:
	       steps(hold ? held : let_go, hold ? N_OF(held) : N_OF(let_go)) ?:
	       (converge(WAIT_S * slow) < 0 ? -ETIMEDOUT : 0);
}

/* Running state set in the module survives lnetd's repairs and its restart. */
void case_restart(void)
{
	struct lnetk_peer_ni pset = {
		.has = LNETK_HAS_PNI_HEALTH, .nid = "10.1.0.2@tcp", .health = 321};
	struct lnetk_ni nset = {
		.has = LNETK_HAS_NI_HEALTH, .nid = "172.16.1.1@o2ib1", .health = 222};
	struct lnetk *lk = open_or_fail("restart");
	int repairs = log_count("lnetk module repaired"), rc;
	uint64_t g0, g1;
	double t0, t;

	if (!lk)
		return;
	rc = hold_running(true) ?: lnetk_peer_ni_set(lk, &pset, NULL) ?:
	     lnetk_ni_set(lk, &nset, NULL);
	/* Foreign changes: lnetd reads the module back and finds nothing to repair. */
	t0 = now();
	while (!rc && log_count("lnetk module repaired") == repairs && now() - t0 < WAIT_S * slow)
		usleep(10000);
	tap(!rc && log_count("lnetk module repaired") > repairs &&
		    pni_health(lk, pset.nid) == 321 && ni_health(lk, nset.nid) == 222 &&
		    agree("after the health change", false),
	    "health set in the module behind lnetd's back: lnetd reads the module back, and "
	    "the health stays (peer NI %d, NI %d)",
	    pni_health(lk, pset.nid), ni_health(lk, nset.nid));

	/* Under valgrind, a clean stop first: that lnetd's verdict counts. */
	if (valgrind) {
		stop_lnetd(SIGTERM);
		if (start_lnetd(SMALL_DIR) < 0)
			return;
	}
	stop_lnetd(SIGKILL);
	g0 = module_generation();
	t = start_lnetd(SMALL_DIR);
	g1 = module_generation();
	diag("lnetd restarted in %.2f s; module generation %" PRIu64 " before, %" PRIu64 " after",
	     t, g0, g1);
	tap(t >= 0 && g0 && g0 == g1 && pni_health(lk, pset.nid) == 321 &&
		    ni_health(lk, nset.nid) == 222 && agree("after kill -9 and restart", false),
	    "kill -9 lnetd and start it again: the module is left as it was (generation %" PRIu64
	    " kept, health %d and %d kept) and equal to the store",
	    g1, pni_health(lk, pset.nid), ni_health(lk, nset.nid));
	rc = hold_running(false);
	tap(!rc, "recovery and router checks as they were (%s)", errname(rc));
	lnetk_close(lk);
}

void case_rmmod(void)
{
	struct strbuf before = {0}, after = {0};
	char why[512];
	double t0, t;
	int rc, pending = 0;

	rc = lnetd_text(&before) ?: sh("rmmod lnetk");
	t0 = now();
	while (!rc && (pending = module_pending(why, sizeof(why))) == 0 &&
	       now() - t0 < WAIT_S * slow)
		usleep(10000);
	t = now() - t0;
	rc = rc ?: lnetd_text(&after);
	diag("Status %.2f s after rmmod: %s", t, pending > 0 ? why : "no module row");
	tap(!rc && pending > 0 && strstr(why, "not loaded") && text_same(&before, &after),
	    "rmmod lnetk under a running lnetd: Status says the module is not loaded, and nothing "
	    "is lost from lnetd's configuration");

	rc = sh("insmod %s", ko);
	t0 = now();
	t = rc ? -1 : converge(WAIT_S * slow);
	if (t >= 0)
		t = now() - t0;
	pending = module_pending(why, sizeof(why));
	diag("the module held everything again %.3f s after insmod", t);
	tap(!rc && t >= 0 && !pending && agree("after insmod", false),
	    "insmod lnetk: lnetd gives the module everything again by itself (in %.2f s), and "
	    "Status says applied",
	    t);
	sb_free(&before);
	sb_free(&after);
}

/* SetHealth through lnetd: health is the module's running state. */
void case_set_health(void)
{
	struct lnetk *lk;
	sd_bus_error e = SD_BUS_ERROR_NULL;
	sd_bus_message *reply = NULL;
	int rc, hp = -1, hn = -1;

	lk = open_or_fail("SetHealth");
	if (!lk)
		return;
	rc = hold_running(true);
	if (rc)
		diag("holding recovery and router checks off: %s", errname(rc));
	else
		rc = sd_bus_call_method(bus, MANAGER, "SetHealth", &e, &reply, "ssu", "peer_ni",
					"10.1.0.2@tcp", 444);
	reply = sd_bus_message_unref(reply);
	if (rc >= 0)
		rc = sd_bus_call_method(bus, MANAGER, "SetHealth", &e, &reply, "ssu", "ni",
					"172.16.0.1@tcp", 555);
	if (rc < 0)
		diag("SetHealth: %s", e.message ?: strerror(-rc));
	hp = pni_health(lk, "10.1.0.2@tcp");
	hn = ni_health(lk, "172.16.0.1@tcp");
	tap(rc >= 0 && hp == 444 && hn == 555,
	    "SetHealth through lnetd sets the health in the module (peer NI %d, NI %d)", hp, hn);
	rc = hold_running(false);
	tap(!rc, "recovery and router checks as they were (%s)", errname(rc));
	sd_bus_error_free(&e);
	sd_bus_message_unref(reply);
	lnetk_close(lk);
}

/* ListNIs' "up" for @nid ("ni NID if=... up=N ..." in lnetd's text): 0, 1, or -1. */
static int listed_up(const char *nid)
{
	struct strbuf sb = {0};
	char key[LNETK_NID_MAX + 8];
	const char *at, *up;
	int v = -1;

	snprintf(key, sizeof(key), "ni %s ", nid);
	if (!lnetd_text(&sb) && sb.s && (at = strstr(sb.s, key)) && (up = strstr(at, " up=")))
		v = up[4] == '1';
	sb_free(&sb);
	return v;
}

/*
 * An NI set down (health 0 by hand) in the module before lnetd starts: the
 * new lnetd reads it back, so ListNIs says down, as the module's ping info
 * does, without waiting for the next SetHealth.
 */
void case_ni_down_restart(void)
{
	static const char nid[] = "172.16.0.1@tcp";
	struct lnetk_ni nset = {.has = LNETK_HAS_NI_HEALTH, .nid = "172.16.0.1@tcp", .health = 0};
	struct lnetk *lk = open_or_fail("NI down at restart");
	int before, after, back;
	double t;

	if (!lk)
		return;
	stop_lnetd(SIGKILL);
	if (lnetk_ni_set(lk, &nset, NULL))
		diag("NI_SET health 0 on %s failed", nid);
	t = start_lnetd(SMALL_DIR);
	before = t >= 0 ? listed_up(nid) : -1;
	/* a foreign change with lnetd running is read back too */
	nset.health = 1000; /* full health */
	lnetk_ni_set(lk, &nset, NULL);
	converge(WAIT_S * slow);
	back = listed_up(nid);
	nset.health = 0;
	lnetk_ni_set(lk, &nset, NULL);
	converge(WAIT_S * slow);
	after = listed_up(nid);
	nset.health = 1000; /* full health */
	lnetk_ni_set(lk, &nset, NULL);
	converge(WAIT_S * slow);
	tap(t >= 0 && before == 0 && back == 1 && after == 0 && listed_up(nid) == 1 &&
		    agree("after the NI came back up", false),
	    "an NI set down in the module before lnetd starts is down in ListNIs (up=%d), as "
	    "after a change behind lnetd's back (up=%d, then %d)",
	    before, back, after);
	lnetk_close(lk);
}
