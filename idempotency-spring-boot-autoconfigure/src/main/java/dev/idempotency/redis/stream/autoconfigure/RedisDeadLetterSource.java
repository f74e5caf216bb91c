package dev.idempotency.redis.stream.autoconfigure;

import dev.idempotency.autoconfigure.actuate.DeadLetterSource;
import dev.idempotency.redis.stream.DeadLetterStreamRedrive;

/**
 * Redis dead-letter streams for the endpoint, through {@link DeadLetterStreamRedrive}.
 */
final class RedisDeadLetterSource implements DeadLetterSource {

	private final DeadLetterStreamRedrive redrive;

	RedisDeadLetterSource(DeadLetterStreamRedrive redrive) {
		this.redrive = redrive;
	}

	@Override
	public String transport() {
		return "redis";
	}

	@Override
	public Object preview(String name, Query query) {
		return this.redrive.preview(name, query.fromId(), query.limit());
	}

	@Override
	public Object redrive(String name, Query query) {
		return this.redrive.redrive(name, query.fromId(), query.limit());
	}

}
