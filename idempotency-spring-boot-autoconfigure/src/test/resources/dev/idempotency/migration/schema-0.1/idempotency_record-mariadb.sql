CREATE TABLE IF NOT EXISTS idempotency_record (
	namespace VARCHAR(200) CHARACTER SET utf8mb4 COLLATE utf8mb4_nopad_bin NOT NULL,
	idempotency_key VARCHAR(200) CHARACTER SET utf8mb4 COLLATE utf8mb4_nopad_bin NOT NULL,
	status VARCHAR(16) NOT NULL,
	lease_until DATETIME(6) NULL,
	created_at DATETIME(6) NOT NULL,
	expires_at DATETIME(6) NOT NULL,
	PRIMARY KEY (namespace, idempotency_key),
	INDEX idempotency_record_expires_at_idx (expires_at)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_nopad_bin;
