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
	result_body CLOB,
	duplicate_count INT NOT NULL DEFAULT 0,
	last_duplicate_at TIMESTAMP WITH TIME ZONE,
	CONSTRAINT idempotency_record_pk PRIMARY KEY (namespace, idempotency_key)
);

CREATE INDEX IF NOT EXISTS idempotency_record_expires_at_idx ON idempotency_record (expires_at);

-- Leased claims whose lease ended, for the reconciler's scan.
CREATE INDEX IF NOT EXISTS idempotency_record_unfinished_idx ON idempotency_record (status, lease_until);

-- 0.2: adds the leased-mode and key-details columns to a table created by 0.1 (the same statements as
-- schema-upgrade-0.2-h2.sql), so that initialize-schema upgrades it.
ALTER TABLE idempotency_record ADD COLUMN IF NOT EXISTS owner_token VARCHAR(64);
ALTER TABLE idempotency_record ADD COLUMN IF NOT EXISTS attempts INT NOT NULL DEFAULT 0;
CREATE INDEX IF NOT EXISTS idempotency_record_unfinished_idx ON idempotency_record (status, lease_until);
ALTER TABLE idempotency_record ADD COLUMN IF NOT EXISTS fingerprint VARCHAR(64);
ALTER TABLE idempotency_record ADD COLUMN IF NOT EXISTS result_body CLOB;
ALTER TABLE idempotency_record ADD COLUMN IF NOT EXISTS duplicate_count INT NOT NULL DEFAULT 0;
ALTER TABLE idempotency_record ADD COLUMN IF NOT EXISTS last_duplicate_at TIMESTAMP WITH TIME ZONE;
