-- idempotency-spring-boot-starter 0.1: the dedup table. Never edited once shipped (Flyway and Liquibase checksum it).
CREATE TABLE IF NOT EXISTS idempotency_record (
	namespace VARCHAR(200) NOT NULL,
	idempotency_key VARCHAR(200) NOT NULL,
	status VARCHAR(16) NOT NULL,
	lease_until TIMESTAMP WITH TIME ZONE,
	created_at TIMESTAMP WITH TIME ZONE NOT NULL,
	expires_at TIMESTAMP WITH TIME ZONE NOT NULL,
	CONSTRAINT idempotency_record_pk PRIMARY KEY (namespace, idempotency_key)
);

CREATE INDEX IF NOT EXISTS idempotency_record_expires_at_idx ON idempotency_record (expires_at);
