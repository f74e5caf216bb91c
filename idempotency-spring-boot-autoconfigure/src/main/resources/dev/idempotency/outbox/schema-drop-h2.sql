DROP TABLE IF EXISTS idempotency_outbox;
