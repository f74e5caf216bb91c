-- Upgrades an idempotency_outbox table created by 0.1 (0.2): the publisher's W3C trace context.
ALTER TABLE idempotency_outbox ADD COLUMN IF NOT EXISTS traceparent VARCHAR(64) NULL;
