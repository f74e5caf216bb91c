-- idempotency-spring-boot-starter 0.2 (the statements of its schema-upgrade-0.2 script). Adds only what the table lacks,
-- so it leaves a table created by the starter's own initialize-schema as it is.
-- Upgrades an idempotency_outbox table created by 0.1 (0.2): the publisher's W3C trace context, and the
-- index of the relay's claim (pending rows in id order, so that the claim never walks the sent rows).
ALTER TABLE idempotency_outbox ADD COLUMN IF NOT EXISTS traceparent VARCHAR(64);
CREATE INDEX IF NOT EXISTS idempotency_outbox_pending_idx ON idempotency_outbox (id) WHERE status = 'PENDING';
