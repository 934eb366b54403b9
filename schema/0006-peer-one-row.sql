-- lnetd's store, schema version 6: a peer is one row, its other NIDs packed
-- into it in order (the primary stays apart, in nid, and is not repeated);
-- and the history's change is no longer parsed by a CHECK (below).
--
-- A peer_nid row per NID cost two UNIQUE and one foreign key index updates
-- for each, and their cascade on delete: a 50,000-peer import or delete
-- spent most of lnetd's time there.  The peer is keyed by its primary NID,
-- WITHOUT ROWID: one b-tree, where a rowid and a UNIQUE index were two.
-- Only the primary NID is UNIQUE in SQL now; that a NID belongs to one
-- peer at most is checked by lnetd's model before a change is stored, and
-- again when lnetd loads the store at start (a file edited by hand that
-- breaks it is refused, naming both peers).
--
-- nids: the NIDs after the primary, each followed by one space ('' for
-- none): "10.0.0.2@tcp 10.0.0.3@tcp ".  Canonical NIDs hold no space.  No
-- CHECK on it (three string functions per row were a tenth of an insert):
-- the store writes it so, reads any run of spaces as one, and lnetd checks
-- every NID it reads back when it loads the store.
CREATE TABLE peer6 (
	nid TEXT PRIMARY KEY
		CONSTRAINT "the primary NID must not be empty" CHECK (nid <> ''),
	mr INTEGER NOT NULL
		CONSTRAINT "mr must be 0 or 1" CHECK (mr IN (0, 1)),
	nids TEXT NOT NULL DEFAULT ''
) WITHOUT ROWID;
INSERT INTO peer6 (nid, mr, nids)
	SELECT p.nid, p.mr,
		coalesce((SELECT group_concat(n.nid || ' ', '') FROM
			(SELECT nid FROM peer_nid WHERE peer = p.id AND nid <> p.nid ORDER BY id) n),
			'')
	FROM peer p;
DROP TABLE peer_nid;
DROP TABLE peer;
ALTER TABLE peer6 RENAME TO peer;

-- The history without its CHECK (json_type(change) = 'array'): SQLite
-- parsed the whole change to check it, 30 ms of a 50,000-peer import's
-- commit.  Every change is written by the store (its JSON by SQLite's
-- json_object() or, for peers, store-peer.c, checked against it by the
-- unit tests).  Rows, generations and the AUTOINCREMENT counter are kept.
CREATE TABLE history6 (
	gen INTEGER PRIMARY KEY AUTOINCREMENT,
	time INTEGER NOT NULL,
	uid INTEGER NOT NULL,
	pid INTEGER NOT NULL,
	command TEXT NOT NULL,
	summary TEXT NOT NULL,
	change TEXT NOT NULL
);
INSERT INTO history6 SELECT gen, time, uid, pid, command, summary, change FROM history;
DELETE FROM sqlite_sequence WHERE name = 'history6';
INSERT INTO sqlite_sequence (name, seq) SELECT 'history6', seq FROM sqlite_sequence
	WHERE name = 'history';
DROP TABLE history;
ALTER TABLE history6 RENAME TO history;
