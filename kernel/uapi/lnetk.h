/* SPDX-License-Identifier: (GPL-2.0 WITH Linux-syscall-note) OR MIT */
/*
 * lnetk.h - the generic netlink contract of the lnetk kernel module.
 *
 * lnetk keeps LNet's runtime state: local nets and NIs, peers and their
 * NIDs, routes, global settings, the NUMA distance table and the ordered
 * list of UDSP (User Defined Selection Policy) rules, which it flattens
 * onto the objects they match and uses to select paths; and NRS TBF
 * (Token Bucket Filter) policies, one per service, which request sources
 * in other kernel modules use to schedule their requests (lnetk_nrs.h,
 * the in-kernel API; configured and reported here).  There is one
 * independent instance per network namespace; a request acts on the
 * instance of the requesting socket's namespace.  lnetd is its only writer
 * in production; anyone may read.
 *
 * The family is LNETK_GENL_NAME, version LNETK_GENL_VERSION.  Asking the
 * kernel for the family by name loads the module (MODULE_ALIAS_GENL_FAMILY).
 *
 * Generation
 * ----------
 * Every instance carries a generation: a u64 that starts at 0 when the
 * instance is created and grows with every change to it.  Every reply,
 * each message of a dump included, carries it as LNETK_A_GENERATION (the
 * generation after the request), so a reader can tell whether what it saw
 * is still current, and a writer can tell its own changes from someone
 * else's in the notifications below.  A dump also sets NLM_F_DUMP_INTR on
 * its messages once the instance changed under it.
 *
 * Errors
 * ------
 * Policies are strict and checked before a command runs: an attribute the
 * command does not take, one of the wrong type or size, or a string that
 * is too long is refused with -EINVAL; a number out of its range with
 * -ERANGE.  The command then checks what a policy cannot express (required
 * attributes, NID and expression grammar, the object model's rules) and
 * refuses with:
 *   -EINVAL        malformed or missing input (a NID that does not parse, a
 *                  rule of no known kind, a required attribute missing)
 *   -ERANGE        a value out of range (health above 1000, a global)
 *   -ENOENT        the object named does not exist
 *   -EEXIST        it exists already (a NID that belongs to another peer)
 *   -EBUSY         something depends on it (a gateway with routes)
 *   -E2BIG         a limit was reached (max_interfaces)
 *   -EHOSTUNREACH  (SELECT, EXPLAIN) nothing reaches the destination
 *   -EADDRNOTAVAIL (SELECT, EXPLAIN) the source NID is not a local NI
 *   -ENETDOWN      (SELECT, EXPLAIN) the source NI is down
 *   -EOPNOTSUPP    LNETK_A_FLAGS bits the command does not support
 * Every refusal carries an extack message saying, in a sentence, what was
 * wrong, naming the bad attribute (NLMSGERR_ATTR_OFFS points at it) or the
 * bad input; ask for it with the NETLINK_EXT_ACK socket option.  A refused
 * request changes nothing: commands that take several objects (PEER_ADD,
 * PEER_DEL, BATCH) apply all of them or none.
 *
 * Permissions
 * -----------
 * Commands marked (admin) need CAP_NET_ADMIN in the user namespace that
 * owns the network namespace (GENL_UNS_ADMIN_PERM) and fail with -EPERM
 * otherwise, before any attribute is looked at (so without extack).  All
 * others are reads, open to anyone.
 *
 * Strings
 * -------
 * NIDs, nets and expressions travel as text in the forms lnetctl prints
 * ("10.0.0.1@tcp", "o2ib1", "10.0.0.[1-4]@tcp"), parsed in the kernel by the
 * same code as in userspace, so both give the same verdict.  Replies print
 * them in canonical form.
 *
 * Commands
 * --------
 * LNETK_CMD_GET_INFO: the instance's identity.  Takes nothing.  Replies:
 *   LNETK_A_GENERATION, LNETK_A_VERSION (the module's version, "0.1.0"),
 *   LNETK_A_COUNT (how many objects: NIs + peer NIs + routes + rules).
 *
 * LNETK_CMD_BUMP (admin; a test build only, like LNETK_CMD_TBF_LOAD: the
 *   module built with LNETK_DEBUG=y, as the VM tier does; a production
 *   module answers -EOPNOTSUPP): a harmless change, for tests of the change
 *   path.  Takes LNETK_A_COUNT (required, 1..LNETK_BUMP_MAX) and adds it to the
 *   generation.  Replies LNETK_A_GENERATION.
 *
 * LNETK_CMD_NI_ADD (admin): add a local NI.  Takes LNETK_A_NI with
 *   LNETK_NI_A_NID (required), LNETK_NI_A_IFNAME, LNETK_NI_A_CPTS,
 *   LNETK_NI_A_DEV_CPT and the tunables, each a u32 attribute of its own
 *   (engine/tunables.h lists them with their ranges: LNETK_NI_A_PEER_TIMEOUT,
 *   LNETK_NI_A_PEER_CREDITS, ...), each optional: the LND's default
 *   otherwise.  A value out of its range is refused naming the attribute.
 *   The first NI of a net creates the net.
 * LNETK_CMD_NI_DEL (admin): delete the NI LNETK_A_NI/LNETK_NI_A_NID; the
 *   last NI of a net takes the net with it.
 * LNETK_CMD_NI_SET (admin): LNETK_A_NI with LNETK_NI_A_NID and any of
 *   LNETK_NI_A_HEALTH (0..1000), LNETK_NI_A_UP (link state; a down NI is
 *   never selected), LNETK_NI_A_TX_CREDITS.
 * LNETK_CMD_NI_GET: with LNETK_A_NI/LNETK_NI_A_NID, that NI; as a dump
 *   (NLM_F_DUMP), every NI, in creation order.  Each reply message carries
 *   one LNETK_A_NI with every NI attribute, including the UDSP values
 *   flattened onto it: LNETK_NI_A_PRIO and LNETK_NI_A_PRIO_RULE (its NID
 *   priority and the idx of the rule that set it, -1 if none),
 *   LNETK_NI_A_NET_PRIO and LNETK_NI_A_NET_PRIO_RULE (its net's).
 *
 * LNETK_CMD_PEER_ADD (admin): LNETK_A_PEER with LNETK_PEER_A_PRIMARY
 *   (required), LNETK_PEER_A_MR (default 1: Multi-Rail) and any number of
 *   LNETK_PEER_A_PEER_NI, each with LNETK_PNI_A_NID: the peer is created
 *   if it does not exist, and the NIDs are added to it (a peer that exists
 *   and gets no new NID: -EEXIST, nothing to do).  A NID already
 *   owned by another peer is refused (-EEXIST) and the message names the
 *   owner.  Adding a route's gateway by name makes it an explicit peer.
 * LNETK_CMD_PEER_DEL (admin): LNETK_A_PEER with LNETK_PEER_A_PRIMARY and
 *   optionally LNETK_PEER_A_PEER_NI entries: deletes those NIDs (the last
 *   one takes the peer), or without entries the whole peer.
 * LNETK_CMD_PEER_NI_SET (admin): LNETK_A_PEER_NI with LNETK_PNI_A_NID and
 *   any of LNETK_PNI_A_HEALTH, LNETK_PNI_A_CREDITS.
 * LNETK_CMD_PEER_GET: with LNETK_A_PEER/LNETK_PEER_A_PRIMARY (any of the
 *   peer's NIDs will do), that peer in one message; as a dump, every peer
 *   in creation order.  A message carries one LNETK_A_PEER with
 *   LNETK_PEER_A_PRIMARY, LNETK_PEER_A_MR, LNETK_PEER_A_IMPLICIT,
 *   LNETK_PEER_A_DISCOVERED (each peer NI has LNETK_PNI_A_DISCOVERED too:
 *   made or found by the instance's discovery, runtime state) and one or
 *   more LNETK_PEER_A_PEER_NI, each with its NID, health, credits,
 *   UDSP values (LNETK_PNI_A_PRIO/_PRIO_RULE, LNETK_PNI_A_NET_PRIO/
 *   _NET_PRIO_RULE) and preferred sources and routers
 *   (LNETK_PNI_A_PREF_SRC, LNETK_PNI_A_PREF_GW: one LNETK_PREF_A_* nest
 *   each).  A dump may split a peer with many NIDs over several messages:
 *   they repeat the primary NID; readers merge them.
 *
 * LNETK_CMD_ROUTE_ADD (admin): LNETK_A_ROUTE with LNETK_ROUTE_A_NET and
 *   LNETK_ROUTE_A_GATEWAY (required), LNETK_ROUTE_A_HOPS (1..255, default
 *   1), LNETK_ROUTE_A_PRIORITY (default 0), LNETK_ROUTE_A_SENSITIVITY
 *   (default 1).  The gateway becomes a peer if it was not one.
 * LNETK_CMD_ROUTE_DEL (admin): LNETK_A_ROUTE with the net and gateway.
 * LNETK_CMD_ROUTE_GET: dump only; one LNETK_A_ROUTE per message.
 *
 * LNETK_CMD_RULE_ADD (admin): LNETK_A_RULE with any of LNETK_RULE_A_SRC,
 *   LNETK_RULE_A_DST, LNETK_RULE_A_RTE (expressions), LNETK_RULE_A_PRIORITY
 *   (absent: none; a net or NID rule needs one) and LNETK_RULE_A_IDX
 *   (insert before the rule now at that idx; absent or past the end:
 *   append).  A rule with the same expressions as an existing one updates
 *   its priority in place.  Replies LNETK_A_RULE with LNETK_RULE_A_IDX
 *   and LNETK_RULE_A_OUTCOME (LNETK_RULE_ADDED or LNETK_RULE_UPDATED).
 * LNETK_CMD_RULE_DEL (admin): LNETK_A_RULE with LNETK_RULE_A_IDX, or
 *   LNETK_A_FLAGS with LNETK_F_ALL for every rule.  Deleting a rule gives
 *   back to each object what the surviving rules say.
 * LNETK_CMD_RULE_GET: dump only, in idx order; one LNETK_A_RULE per message
 *   with LNETK_RULE_A_IDX, LNETK_RULE_A_KIND, the expressions present and
 *   LNETK_RULE_A_PRIORITY when the rule has one.
 *
 * LNETK_CMD_GLOBAL_SET (admin): LNETK_A_GLOBAL with LNETK_GLOBAL_A_NAME
 *   (Lustre's name, e.g. "numa_range") and LNETK_GLOBAL_A_VALUE.
 * LNETK_CMD_GLOBAL_GET: one message with an LNETK_A_GLOBAL per setting.
 *
 * LNETK_CMD_NUMA_SET (admin): LNETK_A_NUMA with LNETK_NUMA_A_NCPT and
 *   LNETK_NUMA_A_DIST, NCPT * NCPT u32 distances row-major; NCPT 0 removes
 *   the table.  Without a table the module uses node_distance() between
 *   CPTs, a CPT being a NUMA node.
 *
 * LNETK_CMD_SELECT (admin, as it moves the round robin): LNETK_A_SELECT with
 *   LNETK_SEL_A_DST (required), LNETK_SEL_A_SRC, LNETK_SEL_A_KIND
 *   (LNETK_MSG_*, default PUT), LNETK_SEL_A_MD_CPT (default -1: unknown),
 *   and LNETK_A_FLAGS with LNETK_F_EXPLAIN for the reasons.  Replies
 *   LNETK_A_SELECT with LNETK_SEL_A_NI, LNETK_SEL_A_PEER_NI and, when
 *   routed, LNETK_SEL_A_GATEWAY; with LNETK_F_EXPLAIN also one
 *   LNETK_SEL_A_ENTRY per candidate considered: LNETK_ENTRY_A_STEP, _NID,
 *   _CRIT (LNETK_CRIT_CHOSEN, or the criterion it lost on), _LOST_AT, and
 *   one LNETK_ENTRY_A_KEY per criterion of its step (LNETK_KEY_A_CRIT,
 *   _VALUE, _RULE).  The order of criteria is engine/select.h's.
 * LNETK_CMD_EXPLAIN (anyone): what SELECT with LNETK_F_EXPLAIN would
 *   answer now, without moving anything: the same request (LNETK_A_FLAGS
 *   refused) and the same reply, but the round robin and a non-Multi-Rail
 *   peer's kept source NI stay as they were, so the next SELECT decides as
 *   this one said (unless something changes in between).  It runs on the
 *   module's running state: health, credits and round robin as traffic
 *   left them.
 *
 * LNETK_CMD_PING (admin, as it sends): LNETK_A_PING with LNETK_PING_A_NID,
 *   and LNETK_PING_A_SRC and LNETK_PING_A_TIMEOUT_MS if wanted.  The
 *   instance's data path sends a GET on the reserved portal (a Lustre ping,
 *   upstream's wire protocol over TCP) and the command waits for the
 *   answer: the reply's LNETK_A_PING holds the features, the pid and one
 *   LNETK_PING_A_ENTRY per NID the node has (0@lo left out).  No answer in
 *   time: -ETIMEDOUT; nothing reaches the NID: -EHOSTUNREACH or -ENOTCONN.
 *   With LNETK_PING_A_DISCOVER the instance discovers the peer instead
 *   (engine/node.h: a ping, the merge, a push to a Multi-Rail peer; 2: even
 *   a peer discovered already) and the reply is the peer as discovery left
 *   it: the Multi-Rail feature bit if it is, its NIDs, the primary first.
 *
 * LNETK_CMD_COUNTERS (anyone): the data path's counters.  Takes nothing;
 *   replies with LNETK_A_COUNTERS: an LNETK_CNT_A_ENTRY for the node (its
 *   totals, then its own counters: messages, errors, routed, connections,
 *   faults by kind), then one per local NI and peer NI counted, each a list
 *   of (name, value) items named as `lnetctl stats show` names them.  NIDs
 *   past what one reply holds are left out, with LNETK_CNT_A_TRUNCATED.
 *
 * LNETK_CMD_COUNTERS_RESET (admin): every counter of the data path back to
 *   0 (the router pools' peaks to what they hold now).
 * LNETK_CMD_TEST_SERVICE (admin): LNETK_A_ON 1 serves the traffic
 *   generator's test portal on this instance (engine/node.h:
 *   LNE_PORTAL_TEST), 0 stops.
 * LNETK_CMD_SELFTEST (admin, as it sends): LNETK_A_TEST with
 *   LNETK_TEST_A_NID, and LNETK_TEST_A_MODE, _SIZE, _COUNT, _CONCURRENCY,
 *   _NO_ACK if wanted (engine/node-test.h: bounds and defaults as lnetd's
 *   Selftest).  Runs the traffic generator on the instance's data path and
 *   waits for its last message; the reply's LNETK_A_TEST holds _MESSAGES,
 *   _FAILED, _BYTES, _ELAPSED_NS, _ERROR (the first failure's errno, 0) and
 *   one LNETK_TEST_A_RAIL per local NI (_NID, _SENT, _RECEIVED: bytes).  With
 *   LNETK_TEST_A_INTERVAL_MS it also samples each rail's bytes that often
 *   (at most LNETK_TEST_SAMPLES_MAX rows, the first at the start and the
 *   last at the end): one LNETK_TEST_A_SAMPLE per row.  A signal stops it:
 *   no more messages start, -EINTR.
 *
 * LNETK_CMD_FAULT (admin): fault injection on the data path, as lnetd's
 *   FaultAdd/FaultDelete/FaultReset (engine/fault.h).  LNETK_A_FAULT with
 *   LNETK_FAULT_A_OP and LNETK_FAULT_A_DELAY (0: drop rules, 1: delay):
 *   ADD takes one LNETK_FAULT_A_OPT (_KEY, _VALUE) per option, as
 *   `lnetctl fault` names them, and replies LNETK_A_COUNT, the new rule's
 *   id; DEL takes _SRC and/or _DST (NIDs) or _ALL and replies in
 *   LNETK_A_COUNT how many went; RESET zeroes the rules' counters.
 *   Rules are running state: gone with the namespace, never stored.
 * LNETK_CMD_FAULT_GET (anyone): LNETK_A_FAULT with _DELAY; one message
 *   with an LNETK_FAULT_A_RULE per rule, oldest first: _ID, its _OPTs and
 *   one LNETK_FAULT_A_STAT (_KEY, _COUNT) per counter.
 * LNETK_CMD_HEALTH_GET (anyone): LNETK_A_HEALTH with LNETK_HEALTH_A_NID, a
 *   local NI's or peer NI's: the reply's LNETK_A_HEALTH holds _LOCAL,
 *   _VALUE (0..1000) and one LNETK_HEALTH_A_STAT (_KEY, _COUNT) per health
 *   counter, named as `net show -v` prints them; a peer NI's also
 *   _RTR_CREDITS and _RTR_MIN (what this node, routing, holds for it).
 *   -ENOENT: no such NI.
 * LNETK_CMD_RECOVERY_GET (anyone): LNETK_A_HEALTH with _PEER (0: local
 *   NIs); the reply's LNETK_A_HEALTH holds an LNETK_HEALTH_A_ENTRY (_NID,
 *   _PINGS failed in a row, _NEXT_MS: the next ping on the monotonic
 *   clock) per NI waiting in that recovery queue.
 *
 * LNETK_CMD_BATCH (admin): apply many objects in one message, all or
 *   nothing, for a fast restore.  The message carries, in order, any number
 *   of LNETK_A_NI, LNETK_A_PEER, LNETK_A_ROUTE, LNETK_A_RULE and
 *   LNETK_A_GLOBAL attributes at the top level (not nested: an attribute
 *   holds at most 64 KiB, a batch may be megabytes; raise SO_SNDBUF), each
 *   meaning what its *_ADD (or GLOBAL_SET) command means.  With LNETK_A_FLAGS
 *   LNETK_F_REPLACE the instance is emptied first, so the batch becomes the
 *   whole state.  Rules are applied after the other items (in their own
 *   order): flattening makes the result the same, and it is much faster.
 *   The batch is built on a copy and swapped in on success;
 *   on failure the extack names the failing item (its offset) and nothing
 *   changes.  Replies LNETK_A_GENERATION and LNETK_A_COUNT (items applied).
 *
 * NRS TBF policies
 * ----------------
 * An instance also holds Token Bucket Filter policies, one per service (a
 * named request queue such as "ost_io"), each with a reg and an hp queue;
 * the engine's tbf.h describes types, depths, rules and their grammar.
 * They are not part of BATCH (LNETK_F_REPLACE leaves them as they are),
 * and live as long as the instance.  At most LNETK_TBF_POLICIES_MAX.
 *
 * LNETK_CMD_TBF_SET (admin): LNETK_A_TBF with LNETK_TBF_A_SERVICE
 *   (required), LNETK_TBF_A_QUEUE (LNETK_TBF_REG or LNETK_TBF_HP; absent:
 *   both), LNETK_TBF_A_TYPE ("nid", "jobid+uid", ...) and
 *   LNETK_TBF_A_DEPTH (1..LNETK_TBF_DEPTH_MAX tokens).  Creates the policy
 *   (both queues typed "nid", depth 3, a default rule) if the service has
 *   none, then sets the type and depth given, all or nothing.  A policy
 *   that exists and gets neither: -EEXIST.  A type that a rule of the
 *   queue does not fit: -EINVAL; a queue holding requests: -EBUSY.
 * LNETK_CMD_TBF_CMD (admin): LNETK_A_TBF with LNETK_TBF_A_SERVICE and
 *   LNETK_TBF_A_CMD (both required): one rule command of tbf.h ("start io
 *   nid={10.0.0.[1-4]@tcp} rate=500", "hp change default rate=20",
 *   "stop io").  The engine's sentence is the extack message.  -ENOENT for
 *   a service without a policy or a rule that does not exist, -EEXIST for
 *   a rule that does, -ENOSPC past LNE_TBF_RULES_MAX rules.
 * LNETK_CMD_TBF_DEL (admin): LNETK_A_TBF with LNETK_TBF_A_SERVICE: the
 *   policy goes, with its rules and classes.
 * LNETK_CMD_TBF_GET: with LNETK_A_TBF/LNETK_TBF_A_SERVICE, that policy;
 *   as a dump, every policy in service name order (or, given
 *   LNETK_TBF_A_SERVICE, only that one: -ENOENT if it has none).  A
 *   message carries one LNETK_A_TBF with LNETK_TBF_A_SERVICE and one
 *   LNETK_TBF_A_QUEUE_INFO per queue (reg first): LNETK_TBFQ_A_QUEUE,
 *   _TYPE, _DEPTH, _NCLASSES, _NACTIVE, _QUEUED, _FIRST and one
 *   LNETK_TBFQ_A_RULE per rule in match order, default last:
 *   LNETK_TBFR_A_NAME, _TEXT (the command that recreates it), _RATE,
 *   _REALTIME, _NCLASSES and its statistics _QUEUED, _ENQUEUED,
 *   _DISPATCHED, _WAIT_NS, _THROTTLED.  A policy takes as many dump
 *   messages as it needs (a queue holds up to 256 rules of up to 4 KiB):
 *   a queue whose rules go on in the next message appears there again,
 *   with LNETK_TBFQ_A_FIRST the index of its first rule in that message
 *   (0 in the message that starts it), so a reader appends.  The reply of
 *   the non-dump GET is one message of about 32 KiB: a policy that does
 *   not fit it is refused with -EMSGSIZE (dump it instead).  Dump readers
 *   must read with buffers of 8 KiB or more.
 * LNETK_CMD_TBF_LOAD (admin; a test build only, see LNETK_CMD_BUMP): a test
 *   load, in the kernel.  LNETK_A_TBF
 *   with LNETK_TBF_A_SERVICE, LNETK_TBF_A_LOAD_MS (required,
 *   LNETK_TBF_LOAD_MS_MIN..LNETK_TBF_LOAD_MS_MAX) and one to
 *   LNETK_TBF_LOAD_CLASSES_MAX LNETK_TBF_A_LOAD_CLASS, each with
 *   LNETK_TBFL_A_NID (required: the synthetic requests' client, hence
 *   their class under a nid type) and LNETK_TBFL_A_QUEUE (default reg).
 *   For LOAD_MS the requesting thread keeps LNETK_TBF_LOAD_BACKLOG
 *   requests of every class queued (refilled as they leave) and dequeues
 *   them with a timer armed at the policy's next deadline.  Replies
 *   LNETK_A_GENERATION and LNETK_A_TBF with LNETK_TBF_A_SERVICE,
 *   LNETK_TBF_A_ELAPSED_NS and one LNETK_TBF_A_LOAD_CLASS per class given
 *   (in order) with its NID, LNETK_TBFL_A_ENQUEUED and
 *   LNETK_TBFL_A_DISPATCHED: the achieved rate is DISPATCHED / ELAPSED,
 *   which the class's rule bounds by rate * elapsed + depth.  Requests
 *   still queued at the end are cancelled.  The rules and statistics
 *   apply as for real traffic; the load is not a change of the
 *   configuration: it neither bumps the generation nor is announced.  A
 *   signal ends it early.  The load is a request source like those of
 *   other modules (below): while it runs, TBF_DEL of the policy and a
 *   second source on it are refused with -EBUSY.
 * LNETK_CMD_TBF_CLASS_GET (dump only): the classes of every policy, or of
 *   the one LNETK_A_TBF/LNETK_TBF_A_SERVICE names (-ENOENT if none), in
 *   service order, reg queue before hp.  Each message carries
 *   LNETK_A_GENERATION and one LNETK_A_TBF with LNETK_TBF_A_SERVICE and
 *   one LNETK_TBF_A_CLASS per class, as many as fit: LNETK_TBFC_A_QUEUE,
 *   _KEY (the class key as text), _RULE (the rule it follows) and its
 *   statistics _QUEUED, _ENQUEUED, _DISPATCHED, _WAIT_NS, _THROTTLED.
 *   Classes come and go with traffic, not with the configuration: the
 *   consistency check (see Dumps) covers them too, so a class made or
 *   reclaimed during the dump flags NLM_F_DUMP_INTR.
 *
 * Request sources in other modules (lnetk_nrs.h, EXPORT_SYMBOL_GPL) open
 * a service's policy, enqueue each request as it arrives and dequeue the
 * next one the policy lets out; their traffic shows in the statistics
 * above.  One source at a time holds a policy.  Rule, type and depth
 * changes apply to it at once.
 *
 * Dumps
 * -----
 * Dumps resume where the last message stopped.  Each message is checked
 * against the instance generation (genl_dump_check_consistent): if the
 * instance changed during the dump, messages from then on carry
 * NLM_F_DUMP_INTR and the reader should dump again.
 *
 * Multicast group LNETK_MCGRP_EVENTS ("events")
 * ---------------------------------------------
 * Every change to an instance is announced to the group's members in that
 * network namespace, in generation order: a message whose command is the
 * command that made the change (LNETK_CMD_NI_ADD, ..., LNETK_CMD_TBF_DEL)
 * carrying LNETK_A_GENERATION, the generation after it.  A listener that
 * sees a generation it did not cause knows someone else changed the state;
 * one that sees a gap, or gets ENOBUFS, has missed changes and must read
 * the state again.  Joining the group needs no privilege.
 *
 * Multicast group LNETK_MCGRP_DP ("dp")
 * -------------------------------------
 * What the data path sees happen, never a change to the configuration
 * (no generation), apart from the events group so that a storm of these
 * never makes a listener read the state again:
 *   LNETK_EV_DP_STATE: a local NI or peer NI changed state: LNETK_A_HEALTH
 *     with _NID, _LOCAL, _VALUE (its health now) and _STATE ("down",
 *     "unreachable", "recovering", "healthy"...: engine/node.h's words).
 *   LNETK_EV_DP_DISCOVERED: discovery finished a peer: LNETK_A_PING with
 *     one LNETK_PING_A_ENTRY per NID (_NID), the primary first.
 *   LNETK_EV_DP_ROUTE: the router checker took a route down or up again:
 *     LNETK_A_ROUTE with _NET, _GATEWAY and _DOWN.
 * These command numbers are announcements only: requests are refused.
 * Joining the group needs no privilege.
 */
#ifndef _UAPI_LNETK_H
#define _UAPI_LNETK_H

#define LNETK_GENL_NAME	   "lnetk"
#define LNETK_GENL_VERSION 1

#define LNETK_MCGRP_EVENTS "events"
#define LNETK_MCGRP_DP	   "dp"

/* The most LNETK_CMD_BUMP adds at once: keeps tests from wrapping. */
#define LNETK_BUMP_MAX 1000

/* Longest texts, terminating NUL included. */
#define LNETK_NID_MAX	      64
#define LNETK_NET_MAX	      16
#define LNETK_IFNAME_MAX      16
#define LNETK_EXPR_MAX	      4097
#define LNETK_NAME_MAX	      64
#define LNETK_TBF_SERVICE_MAX 32   /* engine: 1..31 of [A-Za-z0-9_] */
#define LNETK_TBF_TYPE_MAX    64   /* "nid+jobid+opcode+uid+gid" and some */
#define LNETK_TBF_CMD_MAX     4097 /* engine: LNE_TBF_CMD_MAX bytes */

/* TBF policies per instance, and bucket depths. */
#define LNETK_TBF_POLICIES_MAX 64
#define LNETK_TBF_DEPTH_MAX    1000000

/* TBF_LOAD: duration (ms), classes, requests kept queued per class. */
#define LNETK_TBF_LOAD_MS_MIN	   10
#define LNETK_TBF_LOAD_MS_MAX	   10000
#define LNETK_TBF_LOAD_CLASSES_MAX 16
#define LNETK_TBF_LOAD_BACKLOG	   64

enum lnetk_cmd {
	LNETK_CMD_UNSPEC,
	LNETK_CMD_GET_INFO,
	LNETK_CMD_BUMP,
	LNETK_CMD_NI_ADD,
	LNETK_CMD_NI_DEL,
	LNETK_CMD_NI_SET,
	LNETK_CMD_NI_GET,
	LNETK_CMD_PEER_ADD,
	LNETK_CMD_PEER_DEL,
	LNETK_CMD_PEER_NI_SET,
	LNETK_CMD_PEER_GET,
	LNETK_CMD_ROUTE_ADD,
	LNETK_CMD_ROUTE_DEL,
	LNETK_CMD_ROUTE_GET,
	LNETK_CMD_RULE_ADD,
	LNETK_CMD_RULE_DEL,
	LNETK_CMD_RULE_GET,
	LNETK_CMD_GLOBAL_SET,
	LNETK_CMD_GLOBAL_GET,
	LNETK_CMD_NUMA_SET,
	LNETK_CMD_SELECT,
	LNETK_CMD_BATCH,
	LNETK_CMD_TBF_SET,
	LNETK_CMD_TBF_CMD,
	LNETK_CMD_TBF_DEL,
	LNETK_CMD_TBF_GET,
	LNETK_CMD_TBF_LOAD,
	LNETK_CMD_TBF_CLASS_GET,
	LNETK_CMD_EXPLAIN,
	LNETK_CMD_PING,
	LNETK_CMD_COUNTERS,
	LNETK_CMD_COUNTERS_RESET,
	LNETK_CMD_TEST_SERVICE,
	LNETK_CMD_SELFTEST,
	LNETK_CMD_FAULT,
	LNETK_CMD_FAULT_GET,
	LNETK_CMD_HEALTH_GET,
	LNETK_CMD_RECOVERY_GET,
	LNETK_EV_DP_STATE,	/* announcement only: group "dp" */
	LNETK_EV_DP_DISCOVERED, /* announcement only: group "dp" */
	LNETK_EV_DP_ROUTE,	/* announcement only: group "dp" */
	__LNETK_CMD_LAST
};
#define LNETK_CMD_MAX (__LNETK_CMD_LAST - 1)

/* LNETK_A_FLAGS bits. */
#define LNETK_F_ALL	(1U << 0) /* RULE_DEL: every rule */
#define LNETK_F_REPLACE (1U << 1) /* BATCH: the batch is the whole state */
#define LNETK_F_EXPLAIN (1U << 2) /* SELECT: say why */
#define LNETK_F_MASK	(LNETK_F_ALL | LNETK_F_REPLACE | LNETK_F_EXPLAIN)

enum lnetk_attr {
	LNETK_A_UNSPEC,
	LNETK_A_PAD,	    /* alignment padding for 64-bit attributes, never sent alone */
	LNETK_A_GENERATION, /* u64 */
	LNETK_A_VERSION,    /* string */
	LNETK_A_COUNT,	    /* u32 */
	LNETK_A_FLAGS,	    /* u32, LNETK_F_* */
	LNETK_A_NI,	    /* nest, LNETK_NI_A_* */
	LNETK_A_PEER,	    /* nest, LNETK_PEER_A_* */
	LNETK_A_PEER_NI,    /* nest, LNETK_PNI_A_* */
	LNETK_A_ROUTE,	    /* nest, LNETK_ROUTE_A_* */
	LNETK_A_RULE,	    /* nest, LNETK_RULE_A_* */
	LNETK_A_GLOBAL,	    /* nest, LNETK_GLOBAL_A_* */
	LNETK_A_NUMA,	    /* nest, LNETK_NUMA_A_* */
	LNETK_A_SELECT,	    /* nest, LNETK_SEL_A_* */
	LNETK_A_TBF,	    /* nest, LNETK_TBF_A_* */
	LNETK_A_PING,	    /* nest, LNETK_PING_A_* */
	LNETK_A_COUNTERS,   /* nest, LNETK_CNT_A_* */
	LNETK_A_TEST,	    /* nest, LNETK_TEST_A_* */
	LNETK_A_ON,	    /* u8, 0 or 1 */
	LNETK_A_FAULT,	    /* nest, LNETK_FAULT_A_* */
	LNETK_A_HEALTH,	    /* nest, LNETK_HEALTH_A_* */
	__LNETK_A_LAST
};
#define LNETK_A_MAX (__LNETK_A_LAST - 1)

enum lnetk_ni_attr {
	LNETK_NI_A_UNSPEC,
	LNETK_NI_A_PAD,
	LNETK_NI_A_NID,			/* string */
	LNETK_NI_A_IFNAME,		/* string */
	LNETK_NI_A_CPTS,		/* u64: bit per CPT served, 0 = all */
	LNETK_NI_A_DEV_CPT,		/* s32: the device's CPT, -1 unknown */
	LNETK_NI_A_PEER_TIMEOUT,	/* u32, seconds */
	LNETK_NI_A_PEER_CREDITS,	/* u32, >= 1 */
	LNETK_NI_A_PEER_BUFFER_CREDITS, /* u32 */
	LNETK_NI_A_CREDITS,		/* u32, >= 1 */
	LNETK_NI_A_UP,			/* u8, 0 or 1 */
	LNETK_NI_A_HEALTH,		/* u32, 0..1000 */
	LNETK_NI_A_TX_CREDITS,		/* s32 */
	LNETK_NI_A_PRIO,		/* u32, reply: 4294967295 = none */
	LNETK_NI_A_PRIO_RULE,		/* s32, reply: rule idx or -1 */
	LNETK_NI_A_NET_PRIO,		/* u32, reply */
	LNETK_NI_A_NET_PRIO_RULE,	/* s32, reply */
	LNETK_NI_A_CONNS_PER_PEER,	/* u32, 0..127: bulk connections each way; 0 one */
	LNETK_NI_A_TOS,			/* u32, 0..255, or 0xffffffff: -1, off */
	LNETK_NI_A_LND_TIMEOUT,		/* u32, seconds: 0 the global lnd_timeout */
	__LNETK_NI_A_LAST
};
#define LNETK_NI_A_MAX (__LNETK_NI_A_LAST - 1)

enum lnetk_peer_attr {
	LNETK_PEER_A_UNSPEC,
	LNETK_PEER_A_PRIMARY,	 /* string */
	LNETK_PEER_A_MR,	 /* u8, 0 or 1 */
	LNETK_PEER_A_IMPLICIT,	 /* u8, reply: created for a route's gateway */
	LNETK_PEER_A_PEER_NI,	 /* nest, LNETK_PNI_A_*, repeated */
	LNETK_PEER_A_DISCOVERED, /* u8, reply: made by discovery (runtime, not configuration) */
	__LNETK_PEER_A_LAST
};
#define LNETK_PEER_A_MAX (__LNETK_PEER_A_LAST - 1)

enum lnetk_pni_attr {
	LNETK_PNI_A_UNSPEC,
	LNETK_PNI_A_NID,	   /* string */
	LNETK_PNI_A_HEALTH,	   /* u32, 0..1000 */
	LNETK_PNI_A_CREDITS,	   /* s32 */
	LNETK_PNI_A_PRIO,	   /* u32, reply */
	LNETK_PNI_A_PRIO_RULE,	   /* s32, reply */
	LNETK_PNI_A_NET_PRIO,	   /* u32, reply: its net as a destination */
	LNETK_PNI_A_NET_PRIO_RULE, /* s32, reply */
	LNETK_PNI_A_GW_ROUTES,	   /* u32, reply: routes using it as gateway */
	LNETK_PNI_A_PREF_SRC,	   /* nest, LNETK_PREF_A_*, repeated, reply */
	LNETK_PNI_A_PREF_GW,	   /* nest, LNETK_PREF_A_*, repeated, reply */
	LNETK_PNI_A_DISCOVERED,	   /* u8, reply: found by discovery (runtime) */
	LNETK_PNI_A_STATE,	   /* u8, reply: enum lnetk_ni_status, UNKNOWN where not watched */
	__LNETK_PNI_A_LAST
};
#define LNETK_PNI_A_MAX (__LNETK_PNI_A_LAST - 1)

enum lnetk_pref_attr {
	LNETK_PREF_A_UNSPEC,
	LNETK_PREF_A_NID,  /* string: the preferred local NI or gateway */
	LNETK_PREF_A_PRIO, /* u32: the deciding rule's priority (none: max) */
	LNETK_PREF_A_RULE, /* u32: the deciding rule's idx */
	__LNETK_PREF_A_LAST
};
#define LNETK_PREF_A_MAX (__LNETK_PREF_A_LAST - 1)

enum lnetk_route_attr {
	LNETK_ROUTE_A_UNSPEC,
	LNETK_ROUTE_A_NET,	   /* string: the remote net */
	LNETK_ROUTE_A_GATEWAY,	   /* string: the gateway's NID */
	LNETK_ROUTE_A_HOPS,	   /* u32, 1..255 */
	LNETK_ROUTE_A_PRIORITY,	   /* u32 */
	LNETK_ROUTE_A_SENSITIVITY, /* u32 */
	LNETK_ROUTE_A_DOWN,	   /* u8, in a dump: the router checker took it down */
	__LNETK_ROUTE_A_LAST
};
#define LNETK_ROUTE_A_MAX (__LNETK_ROUTE_A_LAST - 1)

/* LNETK_CMD_SELFTEST (uapi: enum lnetk_test_mode is engine/node-test.h's). */
enum lnetk_test_mode {
	LNETK_TEST_WRITE,
	LNETK_TEST_READ,
	LNETK_TEST_PING,
};

enum lnetk_test_attr {
	LNETK_TEST_A_UNSPEC,
	LNETK_TEST_A_PAD,
	LNETK_TEST_A_NID,	  /* string: the peer */
	LNETK_TEST_A_MODE,	  /* u8, enum lnetk_test_mode (default write) */
	LNETK_TEST_A_SIZE,	  /* u32, 0..1 MiB (default 1 MiB) */
	LNETK_TEST_A_COUNT,	  /* u32, 1..10000000 (default 1000) */
	LNETK_TEST_A_CONCURRENCY, /* u32, 1..256 (default 8) */
	LNETK_TEST_A_NO_ACK,	  /* flag: write without asking for ACKs */
	LNETK_TEST_A_MESSAGES,	  /* u32, reply */
	LNETK_TEST_A_FAILED,	  /* u32, reply */
	LNETK_TEST_A_BYTES,	  /* u64, reply */
	LNETK_TEST_A_ELAPSED_NS,  /* u64, reply */
	LNETK_TEST_A_ERROR,	  /* s32, reply: the first failure, -errno */
	LNETK_TEST_A_RAIL,	  /* nest, repeated, reply: _NID, _SENT, _RECEIVED */
	LNETK_TEST_A_SENT,	  /* u64, reply, in a rail */
	LNETK_TEST_A_RECEIVED,	  /* u64, reply, in a rail */
	LNETK_TEST_A_INTERVAL_MS, /* u32: sample a trace this often (LNETK_TEST_INTERVAL_MIN..) */
	LNETK_TEST_A_SAMPLE,	  /* nest, repeated, reply: _T_NS, then _BYTES per rail */
	LNETK_TEST_A_T_NS,	  /* u64, in a sample: since the start */
	LNETK_TEST_A_RAIL_BYTES, /* u64, repeated, in a sample: a rail's bytes so far, rail order */
	__LNETK_TEST_A_LAST
};
#define LNETK_TEST_A_MAX (__LNETK_TEST_A_LAST - 1)

/* LNETK_CMD_SELFTEST's trace: the shortest interval (ms), and the most rows. */
#define LNETK_TEST_INTERVAL_MIN 10
#define LNETK_TEST_INTERVAL_MAX 60000
#define LNETK_TEST_SAMPLES_MAX	1000

/* LNETK_CMD_PING: the most it waits (ms), and the NI status values. */
#define LNETK_PING_TIMEOUT_MAX 300000
enum lnetk_ni_status {
	LNETK_NI_STATUS_UNKNOWN,
	LNETK_NI_STATUS_UP,
	LNETK_NI_STATUS_DOWN,
};

enum lnetk_ping_attr {
	LNETK_PING_A_UNSPEC,
	LNETK_PING_A_NID,	 /* string: whom to ping; reply, in an entry: one of its NIDs */
	LNETK_PING_A_SRC,	 /* string: the local NI to send from */
	LNETK_PING_A_TIMEOUT_MS, /* u32, 1..LNETK_PING_TIMEOUT_MAX (default 1000) */
	LNETK_PING_A_FEATURES,	 /* u32, reply: the ping info's feature bits */
	LNETK_PING_A_PID,	 /* u32, reply */
	LNETK_PING_A_ENTRY,	 /* nest, repeated, reply: LNETK_PING_A_NID and _STATUS */
	LNETK_PING_A_STATUS,	 /* u32, reply, in an entry: enum lnetk_ni_status */
	LNETK_PING_A_DISCOVER,	 /* u8: 1 discover the peer instead, 2 even if discovered */
	__LNETK_PING_A_LAST
};
#define LNETK_PING_A_MAX (__LNETK_PING_A_LAST - 1)

enum lnetk_cnt_attr {
	LNETK_CNT_A_UNSPEC,
	LNETK_CNT_A_PAD,
	LNETK_CNT_A_ENTRY,     /* nest, repeated: the node's, then one per NID */
	LNETK_CNT_A_NID,       /* string, in an entry: absent for the node's own */
	LNETK_CNT_A_LOCAL,     /* u8, in an entry: a local NI (1) or a peer NI (0) */
	LNETK_CNT_A_ITEM,      /* nest, repeated, in an entry: a counter */
	LNETK_CNT_A_NAME,      /* string, in an item */
	LNETK_CNT_A_VALUE,     /* u64, in an item */
	LNETK_CNT_A_TRUNCATED, /* flag: more NIDs were counted than fit */
	__LNETK_CNT_A_LAST
};
#define LNETK_CNT_A_MAX (__LNETK_CNT_A_LAST - 1)

/* LNETK_CMD_FAULT: what to do, and the bounds of an option. */
enum lnetk_fault_op {
	LNETK_FAULT_ADD = 1,
	LNETK_FAULT_DEL,
	LNETK_FAULT_RESET,
};
#define LNETK_FAULT_KEY_MAX   32  /* bytes with the NUL */
#define LNETK_FAULT_VALUE_MAX 256 /* a list of portals or health errors fits */
#define LNETK_FAULT_OPTS_MAX  16

enum lnetk_fault_attr {
	LNETK_FAULT_A_UNSPEC,
	LNETK_FAULT_A_PAD,
	LNETK_FAULT_A_OP,    /* u8, enum lnetk_fault_op */
	LNETK_FAULT_A_DELAY, /* u8: delay rules (1) or drop rules (0) */
	LNETK_FAULT_A_OPT,   /* nest, repeated: _KEY and _VALUE */
	LNETK_FAULT_A_KEY,   /* string */
	LNETK_FAULT_A_VALUE, /* string */
	LNETK_FAULT_A_SRC,   /* string: a NID */
	LNETK_FAULT_A_DST,   /* string: a NID */
	LNETK_FAULT_A_ALL,   /* flag */
	LNETK_FAULT_A_ID,    /* u32, reply, in a rule */
	LNETK_FAULT_A_RULE,  /* nest, repeated, reply: _ID, _OPT..., _STAT... */
	LNETK_FAULT_A_STAT,  /* nest, repeated, reply: _KEY and _COUNT */
	LNETK_FAULT_A_COUNT, /* u64, reply */
	__LNETK_FAULT_A_LAST
};
#define LNETK_FAULT_A_MAX (__LNETK_FAULT_A_LAST - 1)

enum lnetk_health_attr {
	LNETK_HEALTH_A_UNSPEC,
	LNETK_HEALTH_A_PAD,
	LNETK_HEALTH_A_NID,	    /* string */
	LNETK_HEALTH_A_LOCAL,	    /* u8, reply */
	LNETK_HEALTH_A_VALUE,	    /* u32, reply */
	LNETK_HEALTH_A_STAT,	    /* nest, repeated, reply: _KEY and _COUNT */
	LNETK_HEALTH_A_KEY,	    /* string */
	LNETK_HEALTH_A_COUNT,	    /* u64 */
	LNETK_HEALTH_A_PEER,	    /* u8: RECOVERY_GET's peer queue (1) or local (0) */
	LNETK_HEALTH_A_ENTRY,	    /* nest, repeated, reply: _NID, _PINGS, _NEXT_MS */
	LNETK_HEALTH_A_PINGS,	    /* u32 */
	LNETK_HEALTH_A_NEXT_MS,	    /* u64 */
	LNETK_HEALTH_A_STATE,	    /* string, in LNETK_EV_DP_STATE */
	LNETK_HEALTH_A_RTR_CREDITS, /* s32, HEALTH_GET of a peer NI: router credits left */
	LNETK_HEALTH_A_RTR_MIN,	    /* s32, HEALTH_GET of a peer NI: the fewest they were */
	__LNETK_HEALTH_A_LAST
};
#define LNETK_HEALTH_A_MAX (__LNETK_HEALTH_A_LAST - 1)

enum lnetk_rule_outcome {
	LNETK_RULE_ADDED,
	LNETK_RULE_UPDATED,
};

/* LNETK_RULE_A_KIND values: engine/rule.h's enum lne_rule_kind. */
enum lnetk_rule_kind {
	LNETK_RULE_SRC_NET,
	LNETK_RULE_SRC_NID,
	LNETK_RULE_DST_NET,
	LNETK_RULE_DST_NID,
	LNETK_RULE_PAIR,
	LNETK_RULE_ROUTER,
};

enum lnetk_rule_attr {
	LNETK_RULE_A_UNSPEC,
	LNETK_RULE_A_SRC,      /* string: expression */
	LNETK_RULE_A_DST,      /* string: expression */
	LNETK_RULE_A_RTE,      /* string: expression */
	LNETK_RULE_A_PRIORITY, /* u32, 0..4294967294 */
	LNETK_RULE_A_IDX,      /* u32 */
	LNETK_RULE_A_KIND,     /* u8, reply: enum lnetk_rule_kind */
	LNETK_RULE_A_OUTCOME,  /* u8, reply: enum lnetk_rule_outcome */
	__LNETK_RULE_A_LAST
};
#define LNETK_RULE_A_MAX (__LNETK_RULE_A_LAST - 1)

enum lnetk_global_attr {
	LNETK_GLOBAL_A_UNSPEC,
	LNETK_GLOBAL_A_NAME,  /* string */
	LNETK_GLOBAL_A_VALUE, /* u32 */
	__LNETK_GLOBAL_A_LAST
};
#define LNETK_GLOBAL_A_MAX (__LNETK_GLOBAL_A_LAST - 1)

#define LNETK_MAX_CPTS 64

enum lnetk_numa_attr {
	LNETK_NUMA_A_UNSPEC,
	LNETK_NUMA_A_NCPT, /* u32, 0..LNETK_MAX_CPTS */
	LNETK_NUMA_A_DIST, /* binary: NCPT * NCPT u32 */
	__LNETK_NUMA_A_LAST
};
#define LNETK_NUMA_A_MAX (__LNETK_NUMA_A_LAST - 1)

enum lnetk_msg_kind {
	LNETK_MSG_PUT,
	LNETK_MSG_GET,
	LNETK_MSG_ACK,
	LNETK_MSG_REPLY,
};

/* Criteria, as engine/select.h's enum lne_crit. */
enum lnetk_crit {
	LNETK_CRIT_CHOSEN,
	LNETK_CRIT_DOWN,
	LNETK_CRIT_UNREACHABLE,
	LNETK_CRIT_OTHER_NET,
	LNETK_CRIT_HEALTH,
	LNETK_CRIT_PEER_HEALTH,
	LNETK_CRIT_DST_NET_PRIO,
	LNETK_CRIT_SRC_NET_PRIO,
	LNETK_CRIT_NI_PRIO,
	LNETK_CRIT_PEER_PRIO,
	LNETK_CRIT_PREFERRED,
	LNETK_CRIT_ROUTE_PRIO,
	LNETK_CRIT_HOPS,
	LNETK_CRIT_NUMA,
	LNETK_CRIT_CREDITS,
	LNETK_CRIT_ROUND_ROBIN,
};

enum lnetk_step {
	LNETK_STEP_LOCAL_NI,
	LNETK_STEP_PEER_NI,
	LNETK_STEP_GATEWAY,
};

enum lnetk_sel_attr {
	LNETK_SEL_A_UNSPEC,
	LNETK_SEL_A_DST,     /* string */
	LNETK_SEL_A_SRC,     /* string */
	LNETK_SEL_A_KIND,    /* u8, enum lnetk_msg_kind */
	LNETK_SEL_A_MD_CPT,  /* s32, -1..63 */
	LNETK_SEL_A_NI,	     /* string, reply */
	LNETK_SEL_A_PEER_NI, /* string, reply */
	LNETK_SEL_A_GATEWAY, /* string, reply */
	LNETK_SEL_A_ENTRY,   /* nest, LNETK_ENTRY_A_*, repeated, reply */
	__LNETK_SEL_A_LAST
};
#define LNETK_SEL_A_MAX (__LNETK_SEL_A_LAST - 1)

enum lnetk_entry_attr {
	LNETK_ENTRY_A_UNSPEC,
	LNETK_ENTRY_A_STEP,    /* u8, enum lnetk_step */
	LNETK_ENTRY_A_NID,     /* string */
	LNETK_ENTRY_A_CRIT,    /* u8, enum lnetk_crit */
	LNETK_ENTRY_A_LOST_AT, /* u8: index of that criterion among the keys */
	LNETK_ENTRY_A_KEY,     /* nest, LNETK_KEY_A_*, repeated */
	__LNETK_ENTRY_A_LAST
};
#define LNETK_ENTRY_A_MAX (__LNETK_ENTRY_A_LAST - 1)

enum lnetk_key_attr {
	LNETK_KEY_A_UNSPEC,
	LNETK_KEY_A_PAD,
	LNETK_KEY_A_CRIT,  /* u8, enum lnetk_crit */
	LNETK_KEY_A_VALUE, /* s64 */
	LNETK_KEY_A_RULE,  /* s32: idx of the rule behind a priority, -1 */
	__LNETK_KEY_A_LAST
};
#define LNETK_KEY_A_MAX (__LNETK_KEY_A_LAST - 1)

enum lnetk_tbf_queue {
	LNETK_TBF_REG,
	LNETK_TBF_HP,
};

enum lnetk_tbf_attr {
	LNETK_TBF_A_UNSPEC,
	LNETK_TBF_A_SERVICE,	/* string */
	LNETK_TBF_A_QUEUE,	/* u8, enum lnetk_tbf_queue */
	LNETK_TBF_A_TYPE,	/* string: "nid", "jobid+uid", ... */
	LNETK_TBF_A_DEPTH,	/* u32, 1..LNETK_TBF_DEPTH_MAX */
	LNETK_TBF_A_CMD,	/* string: a rule command */
	LNETK_TBF_A_QUEUE_INFO, /* nest, LNETK_TBFQ_A_*, repeated, reply */
	LNETK_TBF_A_PAD,
	LNETK_TBF_A_LOAD_MS,	/* u32: TBF_LOAD's duration */
	LNETK_TBF_A_LOAD_CLASS, /* nest, LNETK_TBFL_A_*, repeated */
	LNETK_TBF_A_ELAPSED_NS, /* u64, reply: how long the load ran */
	LNETK_TBF_A_CLASS,	/* nest, LNETK_TBFC_A_*, repeated, reply */
	__LNETK_TBF_A_LAST
};
#define LNETK_TBF_A_MAX (__LNETK_TBF_A_LAST - 1)

enum lnetk_tbfq_attr {
	LNETK_TBFQ_A_UNSPEC,
	LNETK_TBFQ_A_PAD,
	LNETK_TBFQ_A_QUEUE,    /* u8, enum lnetk_tbf_queue */
	LNETK_TBFQ_A_TYPE,     /* string */
	LNETK_TBFQ_A_DEPTH,    /* u32 */
	LNETK_TBFQ_A_NCLASSES, /* u32 */
	LNETK_TBFQ_A_NACTIVE,  /* u32: classes with queued requests */
	LNETK_TBFQ_A_QUEUED,   /* u64: requests */
	LNETK_TBFQ_A_RULE,     /* nest, LNETK_TBFR_A_*, repeated */
	LNETK_TBFQ_A_FIRST,    /* u32: index of the first LNETK_TBFQ_A_RULE here */
	__LNETK_TBFQ_A_LAST
};
#define LNETK_TBFQ_A_MAX (__LNETK_TBFQ_A_LAST - 1)

enum lnetk_tbfr_attr {
	LNETK_TBFR_A_UNSPEC,
	LNETK_TBFR_A_PAD,
	LNETK_TBFR_A_NAME,	 /* string */
	LNETK_TBFR_A_TEXT,	 /* string: the command that recreates the rule */
	LNETK_TBFR_A_RATE,	 /* u32, requests per second */
	LNETK_TBFR_A_REALTIME,	 /* u8 */
	LNETK_TBFR_A_NCLASSES,	 /* u32: classes following it */
	LNETK_TBFR_A_QUEUED,	 /* u64 */
	LNETK_TBFR_A_ENQUEUED,	 /* u64 */
	LNETK_TBFR_A_DISPATCHED, /* u64 */
	LNETK_TBFR_A_WAIT_NS,	 /* u64 */
	LNETK_TBFR_A_THROTTLED,	 /* u64 */
	__LNETK_TBFR_A_LAST
};
#define LNETK_TBFR_A_MAX (__LNETK_TBFR_A_LAST - 1)

enum lnetk_tbfl_attr {
	LNETK_TBFL_A_UNSPEC,
	LNETK_TBFL_A_PAD,
	LNETK_TBFL_A_NID,	 /* string */
	LNETK_TBFL_A_QUEUE,	 /* u8, enum lnetk_tbf_queue */
	LNETK_TBFL_A_ENQUEUED,	 /* u64, reply */
	LNETK_TBFL_A_DISPATCHED, /* u64, reply */
	__LNETK_TBFL_A_LAST
};
#define LNETK_TBFL_A_MAX (__LNETK_TBFL_A_LAST - 1)

enum lnetk_tbfc_attr {
	LNETK_TBFC_A_UNSPEC,
	LNETK_TBFC_A_PAD,
	LNETK_TBFC_A_QUEUE,	 /* u8, enum lnetk_tbf_queue */
	LNETK_TBFC_A_KEY,	 /* string: "nid=10.0.0.1@tcp opcode=ost_write" */
	LNETK_TBFC_A_RULE,	 /* string: the rule it follows ("" while it has none) */
	LNETK_TBFC_A_QUEUED,	 /* u64 */
	LNETK_TBFC_A_ENQUEUED,	 /* u64 */
	LNETK_TBFC_A_DISPATCHED, /* u64 */
	LNETK_TBFC_A_WAIT_NS,	 /* u64 */
	LNETK_TBFC_A_THROTTLED,	 /* u64 */
	__LNETK_TBFC_A_LAST
};
#define LNETK_TBFC_A_MAX (__LNETK_TBFC_A_LAST - 1)

#endif /* _UAPI_LNETK_H */
