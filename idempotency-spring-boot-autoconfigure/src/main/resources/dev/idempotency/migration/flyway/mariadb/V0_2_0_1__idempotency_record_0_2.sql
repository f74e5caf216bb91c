-- idempotency-spring-boot-starter 0.2 (the statements of its schema-upgrade-0.2 script). Adds only what the table lacks,
-- so it leaves a table created by the starter's own initialize-schema as it is.
-- Upgrades an idempotency_record table created by 0.1 for leased mode (0.2).
ALTER TABLE idempotency_record ADD COLUMN IF NOT EXISTS owner_token VARCHAR(64) NULL;
ALTER TABLE idempotency_record ADD COLUMN IF NOT EXISTS attempts INT NOT NULL DEFAULT 0;
CREATE INDEX IF NOT EXISTS idempotency_record_unfinished_idx ON idempotency_record (status, lease_until);
-- Fingerprints and stored results (0.2), for methods that use them.
ALTER TABLE idempotency_record ADD COLUMN IF NOT EXISTS fingerprint VARCHAR(64) NULL;
ALTER TABLE idempotency_record ADD COLUMN IF NOT EXISTS result_body MEDIUMTEXT NULL;
-- Per-key duplicate accounting (0.2), when idempotency.duplicate-accounting is on.
ALTER TABLE idempotency_record ADD COLUMN IF NOT EXISTS duplicate_count INT NOT NULL DEFAULT 0;
ALTER TABLE idempotency_record ADD COLUMN IF NOT EXISTS last_duplicate_at DATETIME(6) NULL;
