-- lnetd's store, schema version 1: the desired configuration and its history.
--
-- This file is migration 1.  Migrations are applied in order by lnetd/store.c,
-- each in its own transaction, and PRAGMA user_version records the last one
-- applied.  A released migration never changes: the next change to the schema
-- is a new file, schema/0002-<what>.sql (TBF policies and rules will be one).
--
-- Objects are kept as the canonical text the engine prints (NIDs, nets, NID
-- expressions): lnetd validates them with the engine before they get here, and
-- the store never parses them.  The CHECKs hold what SQL can check, and each
-- constraint's name is the sentence a person sees when it fails.  A NULL
-- integer means "not set": the LND's or the kernel's default applies.

-- A local NI as the admin configured it: an interface, an ip2nets address
-- pattern, or both (the interface must then agree with the pattern; lnetd
-- checks that against the real addresses).
CREATE TABLE ni (
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
	UNIQUE (net, ifname),
	UNIQUE (net, pattern)
);

-- A peer, named by its primary NID.
CREATE TABLE peer (
	id INTEGER PRIMARY KEY,
	nid TEXT NOT NULL UNIQUE
		CONSTRAINT "the primary NID must not be empty" CHECK (nid <> ''),
	mr INTEGER NOT NULL
		CONSTRAINT "mr must be 0 or 1" CHECK (mr IN (0, 1))
);

-- Every NID of every peer, the primary included, in the order they were
-- given (id order; the primary comes first).  Keeping the primary here too
-- lets one UNIQUE say that a NID belongs to one peer at most, primary or not.
CREATE TABLE peer_nid (
	id INTEGER PRIMARY KEY,
	peer INTEGER NOT NULL REFERENCES peer (id) ON DELETE CASCADE,
	nid TEXT NOT NULL UNIQUE
		CONSTRAINT "a NID must not be empty" CHECK (nid <> '')
);
CREATE INDEX peer_nid_peer ON peer_nid (peer);

CREATE TRIGGER peer_primary_nid AFTER INSERT ON peer BEGIN
	INSERT INTO peer_nid (peer, nid) VALUES (new.id, new.nid);
END;

CREATE TABLE route (
	id INTEGER PRIMARY KEY,
	net TEXT NOT NULL
		CONSTRAINT "the net must not be empty" CHECK (net <> ''),
	gateway TEXT NOT NULL
		CONSTRAINT "the gateway must not be empty" CHECK (gateway <> ''),
	hops INTEGER
		CONSTRAINT "hops must be 1 to 255" CHECK (hops BETWEEN 1 AND 255),
	priority INTEGER
		CONSTRAINT "priority must be 0 to 4294967294" CHECK (priority BETWEEN 0 AND 4294967294),
	sensitivity INTEGER
		CONSTRAINT "sensitivity must be 0 to 4294967295" CHECK (sensitivity BETWEEN 0 AND 4294967295),
	UNIQUE (net, gateway)
);

-- Only the globals that were set; the others keep the kernel's default.
CREATE TABLE global (
	name TEXT PRIMARY KEY
		CONSTRAINT "a global needs a name" CHECK (name <> ''),
	value INTEGER NOT NULL
) WITHOUT ROWID;

-- The UDSP rules, in order: positions are 0..n-1 with no gap (lnetd/store.c
-- opens and closes gaps; SQL cannot say "contiguous").
CREATE TABLE rule (
	pos INTEGER PRIMARY KEY
		CONSTRAINT "a rule position is 0 or more" CHECK (pos >= 0),
	src TEXT
		CONSTRAINT "the source expression must not be empty" CHECK (src <> ''),
	dst TEXT
		CONSTRAINT "the destination expression must not be empty" CHECK (dst <> ''),
	rte TEXT
		CONSTRAINT "the router expression must not be empty" CHECK (rte <> ''),
	priority INTEGER
		CONSTRAINT "priority must be 0 to 4294967294" CHECK (priority BETWEEN 0 AND 4294967294)
);

-- One row per committed change.  gen is the store's generation counter:
-- AUTOINCREMENT never hands out a number twice, even after old rows are
-- pruned.  change is a JSON array of the changes made, with the previous
-- values, enough to undo them (the format is described in lnetd/store.h).
CREATE TABLE history (
	gen INTEGER PRIMARY KEY AUTOINCREMENT,
	time INTEGER NOT NULL,
	uid INTEGER NOT NULL,
	pid INTEGER NOT NULL,
	command TEXT NOT NULL,
	summary TEXT NOT NULL,
	change TEXT NOT NULL
		CONSTRAINT "a change is a JSON array" CHECK (json_type(change) = 'array')
);
