-- lnetd's store, schema version 5: a peer's primary NID goes into peer_nid
-- by lnetd's own insert (store-peer.c), not by a trigger.  SQLite runs a
-- trigger as a sub-program with a statement journal of its own: it was
-- a third of the cost of adding a peer, which a 50,000-peer import pays
-- 50,000 times.  Rows already stored are unchanged.
DROP TRIGGER peer_primary_nid;
