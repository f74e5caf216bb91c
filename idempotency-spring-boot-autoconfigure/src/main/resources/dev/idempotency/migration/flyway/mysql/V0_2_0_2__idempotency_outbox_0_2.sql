-- idempotency-spring-boot-starter 0.2 (the statements of outbox/schema-upgrade-0.2-mysql.sql). MySQL has no IF NOT EXISTS
-- for columns and indexes: each one is added only when information_schema does not list it, so that a table
-- created by the starter's initialize-schema (which has them already) is left as it is.
SET @idempotency_ddl = IF((SELECT COUNT(*) FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = 'idempotency_outbox' AND COLUMN_NAME = 'traceparent') = 0,
	'ALTER TABLE idempotency_outbox ADD COLUMN traceparent VARCHAR(64) NULL', 'DO 0');
PREPARE idempotency_ddl FROM @idempotency_ddl;
EXECUTE idempotency_ddl;
DEALLOCATE PREPARE idempotency_ddl;

SET @idempotency_ddl = IF((SELECT COUNT(*) FROM information_schema.STATISTICS WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = 'idempotency_outbox' AND INDEX_NAME = 'idempotency_outbox_pending_idx') = 0,
	'CREATE INDEX idempotency_outbox_pending_idx ON idempotency_outbox (status, id)', 'DO 0');
PREPARE idempotency_ddl FROM @idempotency_ddl;
EXECUTE idempotency_ddl;
DEALLOCATE PREPARE idempotency_ddl;
