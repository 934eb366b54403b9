/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fuzz.h - what the files of genl-test fuzz (cases-fuzz.c) share: the
 * contract's tables (fuzz-spec.c), the message generator (fuzz-gen.c),
 * sending and judging (fuzz-check.c) and the attributes not taken
 * (fuzz-taken.c).
 */
#ifndef LNETD_VM_FUZZ_H
#define LNETD_VM_FUZZ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kernel/uapi/lnetk.h"
#include "vm.h"

#define MSG_MAX	 (128 * 1024)
#define NEST_MAX 40000 /* a nest's children stop here: its length is 16 bits */

#define N(a) (sizeof(a) / sizeof((a)[0]))
#define B(x) (1u << (x))

/* --- the generator and the contract's tables (fuzz-spec.c) ------------------------ */

extern uint64_t rng;
uint64_t rnd(void);
uint32_t below(uint32_t n);
bool chance(unsigned int pct);

enum kind {
	K_U8,
	K_U16,
	K_U32,
	K_U64,
	K_S32,
	K_STR,
	K_BIN,
	K_NEST
};

extern const int kind_len[];

enum pool {
	P_NONE,
	P_NID,
	P_NET,
	P_IFNAME,
	P_EXPR,
	P_GNAME,
	P_SERVICE,
	P_TBFTYPE,
	P_TBFCMD
};

struct nspec;

/* One attribute the policy takes. */
struct aspec {
	uint16_t type;
	uint8_t kind;
	uint8_t pool;
	uint32_t max;	  /* strings: the longest, NUL included; binary: the most bytes */
	bool ranged;	  /* the policy refuses values outside lo..hi */
	int64_t lo, hi;	  /* the policy's range */
	int64_t vlo, vhi; /* what valid messages use */
	const struct nspec *nest;
};

/* A nest: the attributes its policy takes, up to maxtype. */
struct nspec {
	const char *name;
	int maxtype;
	const struct aspec *pol;
	int npol;
};

/* What a command takes in one nest: attribute bits, the required ones, and its sub-nest's. */
struct take {
	uint32_t mask, need;
	const struct take *sub;
};

/* A top-level attribute a command takes, how many times, and what inside. */
struct use {
	uint16_t type;
	uint8_t min, max;
	const struct take *take;
};

enum {
	OP_DO = 1,
	OP_DUMP = 2,
	OP_ADMIN = 4
};

struct cspec {
	uint8_t cmd;
	const char *name;
	uint8_t ops;
	uint32_t flags_ok; /* LNETK_A_FLAGS bits it supports */
	struct use use[6];
};

#define NCMDS	  31 /* the entries of cmds[] */
#define NSERVICES 8  /* the entries of services[] */

extern const struct nspec top_nest, tbf_nest;
extern const struct cspec cmds[NCMDS];
extern const char *const services[NSERVICES];

const struct aspec *pol_find(const struct nspec *n, int type);
/* Random bytes of length @n (no NUL inside unless @nul_ok), mostly printable. */
void garbage(char *buf, size_t n, bool nul_ok);
/* A valid-looking string from @pool (see fuzz-spec.c). */
size_t pool_string(int pool, char *buf, size_t max, bool clean);

/* --- building a message (fuzz-gen.c) -------------------------------------------- */

enum poison {
	PZ_NONE,
	PZ_POLICY, /* an attribute policy refuses */
	PZ_CORE,   /* the genl core refuses before the module runs: no extack */
};

struct gen {
	uint8_t buf[MSG_MAX];
	size_t len;
	int mut;		  /* % chance of a mutation at each step */
	bool poison;		  /* something the contract refuses */
	bool core;		  /* refused by the genl core (no extack) */
	bool nottaken;		  /* an attribute the command does not take */
	bool flags_bad;		  /* LNETK_A_FLAGS bits the command does not support */
	bool nt[LNETK_A_MAX + 1]; /* the last of each top-level type holds something not taken */
	char ntwhy[LNETK_A_MAX + 1][96];
	char why[96];	 /* the first poison */
	char whynot[96]; /* the first attribute not taken */
	size_t last_top; /* offset of the last top-level attribute */
	const struct cspec *c;
	uint8_t cmd;
	bool dump;
};

/* Note poison, and the first one's description. */
void mark(struct gen *g, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Start an attribute of @type (flags included); returns its offset. */
size_t put_hdr(struct gen *g, uint16_t type);
void put_end(struct gen *g, size_t off);
void put_data(struct gen *g, uint16_t type, const void *data, size_t n);
void put_int(struct gen *g, uint16_t type, int len, uint64_t v);
/* An unknown attribute id for @n: 0, past its maxtype, or one its policy does not take. */
int unknown_type(const struct nspec *n);
/* Emit attribute @a (taken as @t for a nest), valid or mutated. */
void gen_attr(struct gen *g, const struct nspec *in, const struct aspec *a, const struct take *t,
	      int depth);
void gen_message(struct gen *g, const struct cspec *c, int mut, uint32_t seq, int family);

/* --- state, the kernel log, sending and judging (fuzz-check.c) ------------------ */

/* Everything readable: the objects, the generation and the TBF configuration. */
struct state {
	struct snapshot snap;
	struct strbuf tbf;
	int rc;
};

void state_take(struct lnetk *lk, struct state *st);
bool state_same(const struct state *a, const struct state *b);
void state_free(struct state *st);
void state_diff(const struct state *a, const struct state *b);

/* The kernel log from where we started: /dev/kmsg, record by record. */
extern int kmsg_fd;
extern int kmsg_bad;
void kmsg_open(void);
/* Read what is new; count and show the lines that say the kernel is unwell. */
void kmsg_scan(void);
long meminfo(const char *key);

struct stats {
	uint64_t sent, ok, refused, noext, core, eperm;
};

/* A kind of message accepted though it carries what the command does not take. */
struct finding {
	char what[160];
	uint64_t count;
};

#define NFINDINGS 64

struct fuzz_stats {
	struct stats cmd[NCMDS + 1]; /* the last: unknown commands */
	struct finding finding[NFINDINGS];
	int nfindings;
	uint64_t messages, dump_msgs;
	uint64_t errnos[160]; /* refusals by errno */
	uint64_t poison_accepted, nottaken_accepted, eperm_missing, lost;
	uint64_t refusals_checked, refused_changed;
	char first_bad[4][256];
	int nbad;
};

extern struct fuzz_stats *fs; /* shared with the unprivileged child */

struct fsock {
	int fd;
	int family;
	uint32_t seq;
	uint8_t *rbuf;
};

int fsock_open(struct fsock *s, int family);
void fsock_close(struct fsock *s);
int fsock_send(struct fsock *s, uint8_t *buf, size_t len, char *ext, size_t extlen, uint64_t *msgs);

/* Phase B checks the state around some refusals with this client. */
extern struct lnetk *check_lk;

enum phase {
	PH_REFUSE,
	PH_UNPRIV,
	PH_MIXED
};

/* One message of phase @ph: build, send, judge.  False on a verdict the contract forbids. */
bool one_message(struct fsock *s, struct gen *g, enum phase ph, int mut);
/* The errnos uapi/lnetk.h names (EPERM included). */
bool documented(int rc);

/* --- the driver (cases-fuzz.c) and the attributes not taken (fuzz-taken.c) ------- */

/* The message buffer the phases build in. */
extern struct gen *gbuf;
/* Back to the base state: objects, globals and the fuzzer's TBF policies. */
void reset_state(struct lnetk *lk);
/* Every command with each attribute it does not take added to a message it accepts. */
void case_not_taken(struct lnetk *lk, struct fsock *s);

#endif
