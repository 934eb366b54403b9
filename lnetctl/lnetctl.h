/* SPDX-License-Identifier: GPL-2.0 */
/*
 * lnetctl.h - the CLI's shared parts: exit codes, option tables, the bus.
 *
 * lnetctl speaks Lustre's lnetctl syntax and YAML, and talks only to lnetd
 * over D-Bus (org.lnetd1 on the system bus; DBUS_SYSTEM_BUS_ADDRESS points
 * it elsewhere).  Every command is a function taking its own argv (argv[0]
 * is the command's name, "net add") and returning an exit code.
 */
#ifndef LNETCTL_LNETCTL_H
#define LNETCTL_LNETCTL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <systemd/sd-bus.h>

#include "common/cleanup.h"
#include "conf.h"
#include "engine/rule-attrs.h"

/* Exit codes (lnetctl(8), EXIT STATUS). */
enum {
	EXIT_OK = 0,
	EXIT_REFUSED = 1,  /* lnetd refused: bad value, no such object, exists... */
	EXIT_USAGE = 2,	   /* the command line itself is wrong */
	EXIT_NODAEMON = 3, /* lnetd cannot be reached */
	EXIT_DENIED = 4,   /* the caller may not change the configuration */
	EXIT_FILE = 5,	   /* a file cannot be read or parsed */
};

#define LNETD_BUS_NAME		     "org.lnetd1"
/* lnetd.service's --private-socket (lnetd(8)); $LNETD_PRIVATE_SOCKET names another */
#define LNETD_PRIVATE_SOCKET_DEFAULT "/run/lnetd/private"
#define LNETD_BUS_PATH		     "/org/lnetd1"
#define LNETD_BUS_MANAGER	     "org.lnetd1.Manager"

/* --- options ---------------------------------------------------------------- */

struct ctl_opt {
	const char *name; /* long name, with '-' (an '_' on the command line is the same) */
	char shrt;	  /* short name, or 0 */
	const char *arg;  /* the argument's name in --help, or NULL for a flag */
	const char *help;
	const char *val; /* out: the argument */
	bool given;	 /* out */
};

struct ctl_cmd {
	const char *name;  /* "net add" */
	const char *usage; /* "--net NET --if IF[,IF...] [OPTIONS]" */
	const char *about; /* one sentence */
	int (*run)(struct ctl_opt *opt, int argc, char **argv);
	struct ctl_opt opt[16];
	int min_args, max_args; /* positional arguments */
};

/*
 * Run @cmd on its words: @argv[0] the command's last word, then its options
 * and arguments in any order (opts.c).  Its exit code.
 */
int ctl_run_cmd(const struct ctl_cmd *cmd, int argc, char **argv);
/* The option named @name in @opt (it must exist). */
struct ctl_opt *ctl_opt(struct ctl_opt *opt, const char *name);
/* An error in the command line: one line naming the bad part; returns EXIT_USAGE. */
int ctl_usage(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/*
 * A failure: Lustre's YAML block on stderr (yerr.c) for the command being
 * run, with errno -EINVAL (-EPERM for EXIT_DENIED), or @err; returns @code.
 */
int ctl_fail(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int ctl_fail_errno(int code, int err, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* The YAML block of a failure of the command being run (yerr.c): @err a negative errno. */
void ctl_yerr(int err, const char *descr);
/*
 * The layout of the command's failures from now on, when not its own:
 * cYAML's (@tree) or libyaml's, @verb the top key, @what the key in its
 * list ("yaml", "builder" for a file import cannot read); @verb NULL: the
 * command's own again.
 */
void ctl_err_as(bool tree, const char *verb, const char *what);
/* The key in the list, for a command whose key is its argument (set NAME). */
void ctl_err_name(const char *name);
/*
 * The NIDs a ping or discover could not reach, as upstream prints them
 * after the answers, on stdout: "manage:", then each as @what with its
 * errno and descr.  0, or -EIO.
 */
int ctl_yerr_nodes(const char *what, size_t n, const int *err, const char *const *descr);
/* The negative errno whose strerror() is @text, or @dflt. */
int ctl_errno_of(const char *text, int dflt);
/* A u32 option's value, or ctl_usage() naming it. */
int ctl_u32(const struct ctl_opt *o, uint32_t max, uint32_t *v);
/*
 * Put a --net (@nid false) or --nid filter in lnetd's canonical spelling
 * (tcp0 is tcp, @ib0 is @o2ib), so that it compares with what lnetd lists
 * by strcmp; a value that is no net or NID is a usage error naming it.
 */
int ctl_canon(struct ctl_opt *o, bool nid);
/* The command being run ("net add"), for messages. */
extern const char *ctl_cmd_name;

/* Split "a,b,c" into a NULL-terminated vector (free with ctl_strv_free). */
char **ctl_split(const char *s, size_t *n);
void ctl_strv_free(char **v);
/*
 * Expand Lustre's NID lists: "10.0.0.[1-4]@tcp,10.0.1.1@tcp" (commas
 * outside brackets separate NIDs; brackets in IPv4 octets are ranges,
 * lists and strides).  Returns 0 or EXIT_USAGE after saying what is wrong.
 */
int ctl_nids_expand(const char *list, const char *what, char ***out, size_t *n);

/* --- the bus ------------------------------------------------------------------ */

/*
 * Whether polkit may ask for a password (true unless --no-ask-password):
 * lnetctl then, when its standard input is a terminal, lets lnetd's polkit
 * check be interactive (D-Bus's ALLOW_INTERACTIVE_AUTHORIZATION flag, as
 * systemctl sets it) and waits for a change without a time limit, while
 * someone types a password.  Otherwise calls time out after 600 s.
 */
extern bool ctl_ask_password;
/* Connected to lnetd's bus, or the exit code after saying why not. */
int ctl_bus(sd_bus **bus);
/* A method call; on failure, say why and return the exit code; 0 on success. */
int ctl_call(sd_bus *bus, const char *method, sd_bus_message **reply, const char *types, ...);
/* The same, saying nothing: sd_bus_call()'s result, the error in @e. */
int ctl_call_e(sd_bus *bus, const char *method, sd_bus_message **reply, sd_bus_error *e,
	       const char *types, ...);
/* One node's call for ctl_each_node(): >= 0 with its reply in *@r, or < 0 and @e. */
typedef int (*ctl_node_call)(sd_bus *bus, const char *nid, sd_bus_message **r, sd_bus_error *e,
			     void *arg);
/*
 * @call for each NID of the NID[,NID] words in @argv, the answering nodes
 * printed under @key as Lustre prints a ping (ping, discover), then those
 * that did not answer as its "manage:" list, both on stdout; any other
 * failure as a YAML error on stderr.  The last failure's exit code, 0 if
 * none.
 */
int ctl_each_node(int argc, char **argv, const char *key, ctl_node_call call, void *arg);
/* net add|del --nid (cmd-net-nid.c): NID into net and address; remove the NI holding it. */
int ctl_nid_split(const char *nid, char *net, size_t netlen, char *addr, size_t addrlen);
int ctl_net_del_nid(sd_bus *bus, const char *nid);
/* The global lnd_timeout, as Lustre derives it from transaction_timeout and retry_count. */
int ctl_lnd_timeout(sd_bus *bus, uint32_t *out);
/*
 * Read the a{sv} at @r's position, calling @entry with each key and @r at
 * its variant: @entry reads the variant (> 0), leaves it to be skipped (0)
 * or fails (< 0).  @r ends after the dictionary; < 0 if the reply is not
 * one.
 */
int ctl_read_dict(sd_bus_message *r, int (*entry)(sd_bus_message *r, const char *key, void *arg),
		  void *arg);
/*
 * A reply's a{sv} keys, described once per record: each key a field of the
 * caller's record (offsetof) holding one basic value, or a reader of its
 * own for anything else.  The table ends with a NULL key.
 */
struct ctl_key {
	const char *key;
	char type;  /* the variant's: 's' (const char *, into the reply), 'b' (int), 'u'
		       (uint32_t), 'i' (int32_t), 't' (uint64_t) */
	size_t off; /* where it goes in the record */
	/* instead, when set: read the "v" at @r into @rec (> 0), or fail (< 0) */
	int (*read)(sd_bus_message *r, void *rec);
};
#define CTL_KEY(key, type, rec, field)                \
	{                                             \
		key, type, offsetof(rec, field), NULL \
	}
#define CTL_KEY_FN(key, fn)   \
	{                     \
		key, 0, 0, fn \
	}
/*
 * ctl_read_dict()'s entry for a table: the value of @key into @rec (> 0),
 * 0 for a key not in @keys (skipped), -EBADMSG for a value of another type.
 */
int ctl_key_entry(sd_bus_message *r, const char *key, const struct ctl_key *keys, void *rec);
/*
 * The a{sv} at @r's position read by @keys into @rec: ctl_read_dict() with
 * ctl_key_entry() (keys not in the table skipped).
 */
int ctl_read_record(sd_bus_message *r, const struct ctl_key *keys, void *rec);
/* One NID of a ListNIs entry's "nis": (nid, interface, link up, health). */
struct ctl_ni_nid {
	const char *nid, *ifname;
	int up;
	uint32_t health;
};
/*
 * The "nis" variant at @r, @each called with every NID (< 0 stops):
 * 1, or a negative errno.  A ctl_key reader's body.
 */
int ctl_read_ni_nids(sd_bus_message *r, int (*each)(const struct ctl_ni_nid *n, void *arg),
		     void *arg);
/*
 * A ListNIs entry's pattern and whether its "nis" hold @nid (set it before
 * reading the entry with ctl_ni_holds_keys; cmd-net-nid.c).
 */
struct ctl_ni_holds {
	const char *nid;
	const char *pattern; /* "" when none */
	bool holds;
};
extern const struct ctl_key ctl_ni_holds_keys[];
/*
 * A show of one list, the skeleton most `show` commands share: call
 * @method (or @call), read each record of the array it returns into @rec
 * (cleared first; @size bytes) by its tables, and print those @keep keeps
 * (NULL: all) with @emit, as the YAML list under "@top:" on stdout.
 */
struct yout;
struct ctl_list {
	const char *method; /* "ListRoutes", called without arguments, */
	/* or, when set, this call instead: 0 with its reply in *@r, or an exit code */
	int (*call)(sd_bus *bus, sd_bus_message **r, void *arg);
	const char *top; /* "route" */
	/* the record's leading fields in order (their names as lnetd(8) gives them; no reader) */
	const struct ctl_key *head;
	const struct ctl_key *keys; /* then its a{sv}, by these keys, */
	/* or by a reader of its own (NULL, and no @keys: the record has no a{sv}) */
	int (*entry)(sd_bus_message *r, const char *key, void *rec);
	size_t size;
	bool (*keep)(const void *rec, void *arg);
	void (*emit)(struct yout *y, const void *rec, void *arg);
	/* the failures, each followed by ": " and why: a reply not as described, the output */
	const char *bad_reply, *bad_write;
};
/* The show of @l into @rec, @arg given to its callbacks: its exit code. */
int ctl_show_list(const struct ctl_list *l, void *rec, void *arg);
/*
 * Send @m, built so far with @rc (a negative errno: it failed, say why), and
 * drop it and the reply: 0, or the exit code after saying why not.
 */
int ctl_send(sd_bus *bus, sd_bus_message *m, int rc);
/* A command's end: drop @reply and the connection, return @rc. */
int ctl_finish(int rc, sd_bus *bus, sd_bus_message *reply);
/* Report a failed call (its D-Bus error) as lnetctl does; returns the exit code. */
int ctl_bus_error(const sd_bus_error *e, int rc);

/*
 * Apply @doc's operations; *@gen and *@changes (NULL-terminated, free) on
 * success.  @exclusive: an object that exists already (or is not there to
 * delete) is refused, as the single-object commands do; else (import) it is
 * no change.
 */
/*
 * One operation @op (taken, freed here, also on failure; NULL: out of
 * memory) as an ApplyWith with exclusive: how lnetctl changes the
 * configuration.  Its exit code.
 */
int ctl_apply_op(struct cf_op *op);
int ctl_apply(sd_bus *bus, const struct cf_doc *doc, bool dry, bool exclusive, uint64_t *gen,
	      char ***changes, const char *fname);
/* An "as" into a NULL-terminated list (NULL when empty; ctl_strv_free); 1 or -errno. */
int ctl_read_strv(sd_bus_message *m, char ***out);
/* The same, only if lnetd's configuration is still at generation @at (else Busy). */
int ctl_apply_at(sd_bus *bus, const struct cf_doc *doc, bool dry, uint64_t at, uint64_t *gen,
		 char ***changes, const char *fname);
/*
 * import --if-empty: while true, ctl_apply() applies only into a configuration
 * never changed (ApplyWith's if_empty, generation 0); else nothing is done and
 * *changes holds lnetd's one note, "!not empty: ...".
 */
extern bool ctl_if_empty;
/* The desired state as operations. */
int ctl_export(sd_bus *bus, struct cf_doc *doc, uint64_t *gen);
int ctl_gateway_peers(sd_bus *bus, struct cf_doc *doc);

/* One UDSP rule of ListRules' reply; strings live as long as the reply. */
struct ctl_rule {
	uint32_t idx;
	/* by row of engine/rule-attrs.h: an expression ("" when absent), a number if has[] */
	const char *expr[LNE_RULE_A__COUNT], *kind;
	uint32_t num[LNE_RULE_A__COUNT];
	bool has[LNE_RULE_A__COUNT];
};

/*
 * The next rule of ListRules' reply @r (entered with
 * sd_bus_message_enter_container(r, 'a', "(usssa{sv})")): 1, 0 at the end,
 * or a negative errno.
 */
int ctl_rule_next(sd_bus_message *r, struct ctl_rule *rule);

/*
 * Calls of one NID argument sent ahead (ahead.c): queued with
 * ctl_ahead_push in the order their replies are wanted, then taken with
 * ctl_ahead_call, which sends the next few ahead of the one it waits for.
 * ctl_ahead_call of a call not queued next, or with no queue (NULL), calls
 * now.  Its result is sd_bus_call_method's.
 */
struct ctl_ahead;
struct ctl_ahead *ctl_ahead_new(sd_bus *bus);
int ctl_ahead_push(struct ctl_ahead *a, const char *method, const char *nid);
int ctl_ahead_call(struct ctl_ahead *a, sd_bus *bus, const char *method, const char *nid,
		   sd_bus_message **reply, sd_bus_error *e);
void ctl_ahead_free(struct ctl_ahead *a);

struct yout;
/* Each of these asks lnetd once per NID; with @a, its call was sent ahead (NULL: called now). */
/* "udsp info:" for a local or peer NI, as show -v prints it (lnetd's UdspInfo). */
int ctl_udsp_info(struct ctl_ahead *a, sd_bus *bus, struct yout *y, const char *nid);
/* The health counters of a local NI or peer NI, as keys in the open "health stats" map. */
void ctl_health_stats(struct ctl_ahead *a, sd_bus *bus, struct yout *y, const char *nid);
/* A peer NI's available_rtr_credits and min_rtr_credits, as Lustre's `peer show -v`. */
void ctl_rtr_credits(struct ctl_ahead *a, sd_bus *bus, struct yout *y, const char *nid);

/* The data path's counters by NID (counters.c), read once per show. */
struct ctl_counters;
/* Never fails a show: without a data path, or on an error, every count is 0. */
struct ctl_counters *ctl_counters_read(sd_bus *bus);
void ctl_counters_free(struct ctl_counters *c);
/* Lustre's "statistics" block of @nid (a local NI, or a peer NI). */
void ctl_counters_totals(struct yout *y, const struct ctl_counters *c, const char *nid, bool local);
/* Lustre's "sent_stats", "received_stats" and "dropped_stats" blocks of @nid. */
void ctl_counters_by_type(struct yout *y, const struct ctl_counters *c, const char *nid,
			  bool local);

/* --- commands ------------------------------------------------------------------- */

extern const struct ctl_cmd ctl_net_cmds[], ctl_peer_cmds[], ctl_route_cmds[], ctl_udsp_cmds[],
	ctl_global_cmds[], ctl_conf_cmds[], ctl_lnet_cmds[], ctl_misc_cmds[], ctl_tbf_cmds[],
	ctl_policy_cmds[], ctl_selection_cmds[], ctl_dp_cmds[], ctl_routing_cmds[], ctl_disc_cmds[],
	ctl_fault_cmds[], ctl_health_cmds[];

#endif /* LNETCTL_LNETCTL_H */
