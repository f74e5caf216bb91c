-- idempotency-spring-boot-starter 0.2 (the statements of schema-upgrade-0.2-mysql.sql). MySQL has no IF NOT EXISTS
-- for columns and indexes: each one is added only when information_schema does not list it, so that a table
-- created by the starter's initialize-schema (which has them already) is left as it is.
SET @idempotency_ddl = IF((SELECT COUNT(*) FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = 'idempotency_record' AND COLUMN_NAME = 'owner_token') = 0,
	'ALTER TABLE idempotency_record ADD COLUMN owner_token VARCHAR(64) NULL', 'DO 0');
PREPARE idempotency_ddl FROM @idempotency_ddl;
EXECUTE idempotency_ddl;
DEALLOCATE PREPARE idempotency_ddl;

SET @idempotency_ddl = IF((SELECT COUNT(*) FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = 'idempotency_record' AND COLUMN_NAME = 'attempts') = 0,
	'ALTER TABLE idempotency_record ADD COLUMN attempts INT NOT NULL DEFAULT 0', 'DO 0');
PREPARE idempotency_ddl FROM @idempotency_ddl;
EXECUTE idempotency_ddl;
DEALLOCATE PREPARE idempotency_ddl;

SET @idempotency_ddl = IF((SELECT COUNT(*) FROM information_schema.STATISTICS WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = 'idempotency_record' AND INDEX_NAME = 'idempotency_record_unfinished_idx') = 0,
	'CREATE INDEX idempotency_record_unfinished_idx ON idempotency_record (status, lease_until)', 'DO 0');
PREPARE idempotency_ddl FROM @idempotency_ddl;
EXECUTE idempotency_ddl;
DEALLOCATE PREPARE idempotency_ddl;

SET @idempotency_ddl = IF((SELECT COUNT(*) FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = 'idempotency_record' AND COLUMN_NAME = 'fingerprint') = 0,
	'ALTER TABLE idempotency_record ADD COLUMN fingerprint VARCHAR(64) NULL', 'DO 0');
PREPARE idempotency_ddl FROM @idempotency_ddl;
EXECUTE idempotency_ddl;
DEALLOCATE PREPARE idempotency_ddl;

SET @idempotency_ddl = IF((SELECT COUNT(*) FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = 'idempotency_record' AND COLUMN_NAME = 'result_body') = 0,
	'ALTER TABLE idempotency_record ADD COLUMN result_body MEDIUMTEXT NULL', 'DO 0');
PREPARE idempotency_ddl FROM @idempotency_ddl;
EXECUTE idempotency_ddl;
DEALLOCATE PREPARE idempotency_ddl;

SET @idempotency_ddl = IF((SELECT COUNT(*) FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = 'idempotency_record' AND COLUMN_NAME = 'duplicate_count') = 0,
	'ALTER TABLE idempotency_record ADD COLUMN duplicate_count INT NOT NULL DEFAULT 0', 'DO 0');
PREPARE idempotency_ddl FROM @idempotency_ddl;
EXECUTE idempotency_ddl;
DEALLOCATE PREPARE idempotency_ddl;

SET @idempotency_ddl = IF((SELECT COUNT(*) FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = 'idempotency_record' AND COLUMN_NAME = 'last_duplicate_at') = 0,
	'ALTER TABLE idempotency_record ADD COLUMN last_duplicate_at DATETIME(6) NULL', 'DO 0');
PREPARE idempotency_ddl FROM @idempotency_ddl;
EXECUTE idempotency_ddl;
DEALLOCATE PREPARE idempotency_ddl;
