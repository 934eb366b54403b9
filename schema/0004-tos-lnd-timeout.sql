-- lnetd's store, schema version 4: an NI's tos (Lustre's LND tunable, the IP
-- type of service; NULL is Lustre's -1, the system's) and its LND timeout
-- (net set --lnd-timeout; 0 follows the global lnd_timeout).  NULL, as for
-- every tunable, is the LND's default; existing NIs get NULL.
ALTER TABLE ni ADD COLUMN tos INTEGER
	CONSTRAINT "tos must be 0 to 255" CHECK (tos BETWEEN 0 AND 255);
ALTER TABLE ni ADD COLUMN timeout INTEGER
	CONSTRAINT "timeout must be 0 to 4294967295" CHECK (timeout BETWEEN 0 AND 4294967295);
