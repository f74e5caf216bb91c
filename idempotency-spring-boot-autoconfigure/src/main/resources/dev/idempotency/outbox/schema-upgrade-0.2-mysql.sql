-- Upgrades an idempotency_outbox table created by 0.1 (0.2): the publisher's W3C trace context. Run it
-- once: MySQL has no IF NOT EXISTS for columns.
ALTER TABLE idempotency_outbox ADD COLUMN traceparent VARCHAR(64) NULL;
