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
	traceparent VARCHAR(64) NULL,
	PRIMARY KEY (id),
	UNIQUE KEY idempotency_outbox_message_id_uk (message_id),
	INDEX idempotency_outbox_due_idx (status, next_attempt_at, id),
	INDEX idempotency_outbox_key_idx (message_key, id),
	INDEX idempotency_outbox_sent_idx (status, sent_at),
	INDEX idempotency_outbox_pending_idx (status, id)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_nopad_bin;

-- 0.2: the publisher's W3C trace context; adds the column to a table created by 0.1.
ALTER TABLE idempotency_outbox ADD COLUMN IF NOT EXISTS traceparent VARCHAR(64) NULL;
-- 0.2: the relay's claim walks the pending rows in id order; without this index MariaDB walked the primary
-- key from the oldest row, through every sent row not yet purged. Adds it to a table created by 0.1.
CREATE INDEX IF NOT EXISTS idempotency_outbox_pending_idx ON idempotency_outbox (status, id);
