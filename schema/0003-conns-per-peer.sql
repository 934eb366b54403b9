-- lnetd's store, schema version 3: an NI's conns_per_peer, Lustre's LND
-- tunable (socklnd and o2iblnd: connections kept to each peer).  NULL, as
-- for every tunable, is the LND's default; existing NIs get NULL.
ALTER TABLE ni ADD COLUMN conns_per_peer INTEGER
	CONSTRAINT "conns_per_peer must be 0 to 127" CHECK (conns_per_peer BETWEEN 0 AND 127);
