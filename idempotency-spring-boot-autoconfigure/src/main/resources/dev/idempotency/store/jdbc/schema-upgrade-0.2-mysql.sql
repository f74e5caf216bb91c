-- Upgrades an idempotency_record table created by 0.1 for leased mode (0.2). Run it once: MySQL has
-- no IF NOT EXISTS for columns and indexes.
ALTER TABLE idempotency_record ADD COLUMN owner_token VARCHAR(64) NULL;
ALTER TABLE idempotency_record ADD COLUMN attempts INT NOT NULL DEFAULT 0;
CREATE INDEX idempotency_record_unfinished_idx ON idempotency_record (status, lease_until);
-- Fingerprints and stored results (0.2), for methods that use them.
ALTER TABLE idempotency_record ADD COLUMN fingerprint VARCHAR(64) NULL;
ALTER TABLE idempotency_record ADD COLUMN result_body MEDIUMTEXT NULL;
-- Per-key duplicate accounting (0.2), when idempotency.duplicate-accounting is on.
ALTER TABLE idempotency_record ADD COLUMN duplicate_count INT NOT NULL DEFAULT 0;
ALTER TABLE idempotency_record ADD COLUMN last_duplicate_at DATETIME(6) NULL;
