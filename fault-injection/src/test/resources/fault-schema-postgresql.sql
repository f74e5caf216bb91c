-- Business tables of the fault-injection consumer; the suite creates them before starting children.
-- Rows carry the run id, so runs (and the two test classes) never see each other's data.
-- fault_points_ledger deliberately has no unique constraint on order_id: a double credit shows up as
-- a second row instead of being stopped by the database.
CREATE TABLE IF NOT EXISTS fault_points_account (
	run_id VARCHAR(64) NOT NULL,
	user_id VARCHAR(64) NOT NULL,
	balance BIGINT NOT NULL,
	CONSTRAINT fault_points_account_pk PRIMARY KEY (run_id, user_id)
);

CREATE TABLE IF NOT EXISTS fault_points_ledger (
	id BIGSERIAL PRIMARY KEY,
	run_id VARCHAR(64) NOT NULL,
	order_id VARCHAR(64) NOT NULL,
	user_id VARCHAR(64) NOT NULL,
	points BIGINT NOT NULL,
	credited_by VARCHAR(64) NOT NULL,
	source_partition INT NOT NULL,
	source_offset BIGINT NOT NULL,
	credited_at TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
	-- The transaction that wrote the row: one order per transaction record by record, a poll's orders
	-- with transaction batching. FaultDatabase adds it to a table created without it.
	credited_in BIGINT NOT NULL DEFAULT txid_current()
);

CREATE INDEX IF NOT EXISTS fault_points_ledger_run_order_idx ON fault_points_ledger (run_id, order_id);
