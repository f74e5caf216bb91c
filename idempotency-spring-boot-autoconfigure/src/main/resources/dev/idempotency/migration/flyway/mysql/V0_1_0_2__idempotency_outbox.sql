-- idempotency-spring-boot-starter 0.1: the outbox table. Never edited once shipped (Flyway and Liquibase checksum it).
CREATE TABLE IF NOT EXISTS idempotency_outbox (
	id BIGINT NOT NULL AUTO_INCREMENT,
	message_id VARCHAR(36) NOT NULL,
	destination VARCHAR(255) NOT NULL,
	message_key VARCHAR(255) NULL,
	payload LONGTEXT NOT NULL,
	headers TEXT NULL,
	status VARCHAR(8) NOT NULL,
	attempts INT NOT NULL,
	created_at DATETIME(6) NOT NULL,
	next_attempt_at DATETIME(6) NOT NULL,
	claimed_until DATETIME(6) NULL,
	sent_at DATETIME(6) NULL,
	last_error VARCHAR(2000) NULL,
	PRIMARY KEY (id),
	UNIQUE KEY idempotency_outbox_message_id_uk (message_id),
	INDEX idempotency_outbox_due_idx (status, next_attempt_at, id),
	INDEX idempotency_outbox_key_idx (message_key, id),
	INDEX idempotency_outbox_sent_idx (status, sent_at)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_0900_bin;
