-- lnetd's store, schema version 2: NRS TBF policies, and ip2nets patterns
-- shared by several interfaces.
--
-- One row per service (a named request queue such as ost_io), holding both
-- of its queues: each queue's type (the request fields that form a class
-- key) and bucket depth, and the rules of both queues as the commands that
-- rebuild them, one per line, in the order they are replayed ("reg start
-- io nid={10.0.0.[1-9]@tcp} rate=100", "hp change default rate=50").  The
-- engine (kernel/engine/tbf.h) validated and printed them; the store never
-- parses them.
CREATE TABLE tbf (
	service TEXT PRIMARY KEY
		CONSTRAINT "a service name has 1 to 31 characters" CHECK (length(service) BETWEEN 1 AND 31),
	reg_type TEXT NOT NULL
		CONSTRAINT "the reg queue needs a type" CHECK (reg_type <> ''),
	reg_depth INTEGER NOT NULL
		CONSTRAINT "the reg depth must be 1 to 1000000" CHECK (reg_depth BETWEEN 1 AND 1000000),
	hp_type TEXT NOT NULL
		CONSTRAINT "the hp queue needs a type" CHECK (hp_type <> ''),
	hp_depth INTEGER NOT NULL
		CONSTRAINT "the hp depth must be 1 to 1000000" CHECK (hp_depth BETWEEN 1 AND 1000000),
	rules TEXT NOT NULL
) WITHOUT ROWID;

-- An ip2nets pattern may name several interfaces (tcp(eth0,eth1) 10.0.0.*):
-- one NI per interface, each keyed by (net, interface).  Only NIs placed by
-- the pattern alone are keyed by (net, pattern).  Migration 1 made (net,
-- pattern) unique for every NI, so the table is rebuilt without it.
CREATE TABLE ni_2 (
	id INTEGER PRIMARY KEY,
	net TEXT NOT NULL
		CONSTRAINT "the net must not be empty" CHECK (net <> ''),
	ifname TEXT
		CONSTRAINT "an interface name has 1 to 15 characters" CHECK (length(ifname) BETWEEN 1 AND 15),
	pattern TEXT
		CONSTRAINT "the address pattern must not be empty" CHECK (pattern <> ''),
	cpts TEXT
		CONSTRAINT "the CPT list must not be empty" CHECK (cpts <> ''),
	peer_timeout INTEGER
		CONSTRAINT "peer_timeout must be 0 to 4294967295" CHECK (peer_timeout BETWEEN 0 AND 4294967295),
	peer_credits INTEGER
		CONSTRAINT "peer_credits must be 0 to 4294967295" CHECK (peer_credits BETWEEN 0 AND 4294967295),
	peer_buffer_credits INTEGER
		CONSTRAINT "peer_buffer_credits must be 0 to 4294967295" CHECK (peer_buffer_credits BETWEEN 0 AND 4294967295),
	credits INTEGER
		CONSTRAINT "credits must be 0 to 4294967295" CHECK (credits BETWEEN 0 AND 4294967295),
	CONSTRAINT "an NI needs an interface or an address pattern"
		CHECK (ifname IS NOT NULL OR pattern IS NOT NULL),
	UNIQUE (net, ifname)
);
INSERT INTO ni_2 SELECT id, net, ifname, pattern, cpts, peer_timeout, peer_credits,
	peer_buffer_credits, credits FROM ni;
DROP TABLE ni;
ALTER TABLE ni_2 RENAME TO ni;
CREATE UNIQUE INDEX ni_pattern ON ni (net, pattern) WHERE ifname IS NULL;
