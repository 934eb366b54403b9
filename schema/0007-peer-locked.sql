-- lnetd's store, schema version 7: a peer's primary NID locked (lnetctl
-- peer add --lock_prim, Lustre's LNET_PEER_LOCK_PRIMARY).  A plain peer del
-- --prim_nid of a locked peer removes its other NIDs and keeps it, with its
-- primary; --force removes it, as Lustre's does (sanity-lnet 26).  Existing
-- peers are not locked.  The partial index lists the few locked peers for
-- ListPeers without a scan of a site's 50,000 rows.
ALTER TABLE peer ADD COLUMN locked INTEGER NOT NULL DEFAULT 0
	CONSTRAINT "locked must be 0 or 1" CHECK (locked IN (0, 1));
CREATE INDEX peer_locked ON peer (nid) WHERE locked = 1;
