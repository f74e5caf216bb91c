CREATE TABLE IF NOT EXISTS idempotency_record (
	namespace VARCHAR(200) CHARACTER SET utf8mb4 COLLATE utf8mb4_nopad_bin NOT NULL,
	idempotency_key VARCHAR(200) CHARACTER SET utf8mb4 COLLATE utf8mb4_nopad_bin NOT NULL,
	status VARCHAR(16) NOT NULL,
	lease_until DATETIME(6) NULL,
	created_at DATETIME(6) NOT NULL,
	expires_at DATETIME(6) NOT NULL,
	owner_token VARCHAR(64) NULL,
	attempts INT NOT NULL DEFAULT 0,
	fingerprint VARCHAR(64) NULL,
	result_body MEDIUMTEXT NULL,
	duplicate_count INT NOT NULL DEFAULT 0,
	last_duplicate_at DATETIME(6) NULL,
	PRIMARY KEY (namespace, idempotency_key),
	INDEX idempotency_record_expires_at_idx (expires_at),
	INDEX idempotency_record_unfinished_idx (status, lease_until)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_nopad_bin;

-- 0.2: adds the leased-mode and key-details columns to a table created by 0.1 (the same statements as
-- schema-upgrade-0.2-mariadb.sql), so that initialize-schema upgrades it.
ALTER TABLE idempotency_record ADD COLUMN IF NOT EXISTS owner_token VARCHAR(64) NULL;
ALTER TABLE idempotency_record ADD COLUMN IF NOT EXISTS attempts INT NOT NULL DEFAULT 0;
CREATE INDEX IF NOT EXISTS idempotency_record_unfinished_idx ON idempotency_record (status, lease_until);
ALTER TABLE idempotency_record ADD COLUMN IF NOT EXISTS fingerprint VARCHAR(64) NULL;
ALTER TABLE idempotency_record ADD COLUMN IF NOT EXISTS result_body MEDIUMTEXT NULL;
ALTER TABLE idempotency_record ADD COLUMN IF NOT EXISTS duplicate_count INT NOT NULL DEFAULT 0;
ALTER TABLE idempotency_record ADD COLUMN IF NOT EXISTS last_duplicate_at DATETIME(6) NULL;
