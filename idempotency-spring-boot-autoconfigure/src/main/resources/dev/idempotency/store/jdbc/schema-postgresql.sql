CREATE TABLE IF NOT EXISTS idempotency_record (
	namespace VARCHAR(200) NOT NULL,
	idempotency_key VARCHAR(200) NOT NULL,
	status VARCHAR(16) NOT NULL,
	lease_until TIMESTAMP WITH TIME ZONE,
	created_at TIMESTAMP WITH TIME ZONE NOT NULL,
	expires_at TIMESTAMP WITH TIME ZONE NOT NULL,
	owner_token VARCHAR(64),
	attempts INT NOT NULL DEFAULT 0,
	fingerprint VARCHAR(64),
	result_body TEXT,
	CONSTRAINT idempotency_record_pk PRIMARY KEY (namespace, idempotency_key)
);

CREATE INDEX IF NOT EXISTS idempotency_record_expires_at_idx ON idempotency_record (expires_at);

-- Leased claims whose lease ended, for the reconciler's scan.
CREATE INDEX IF NOT EXISTS idempotency_record_unfinished_idx ON idempotency_record (lease_until) WHERE status = 'PROCESSING';
