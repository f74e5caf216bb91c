CREATE TABLE IF NOT EXISTS idempotency_record (
	namespace VARCHAR(200) CHARACTER SET utf8mb4 COLLATE utf8mb4_0900_bin NOT NULL,
	idempotency_key VARCHAR(200) CHARACTER SET utf8mb4 COLLATE utf8mb4_0900_bin NOT NULL,
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
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_0900_bin;
