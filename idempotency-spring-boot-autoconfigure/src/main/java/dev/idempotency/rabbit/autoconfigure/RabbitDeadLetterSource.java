package dev.idempotency.rabbit.autoconfigure;

import dev.idempotency.autoconfigure.actuate.DeadLetterSource;
import dev.idempotency.rabbit.RabbitDeadLetterRedrive;

/**
 * RabbitMQ dead-letter queues for the endpoint, through {@link RabbitDeadLetterRedrive}: the name is
 * the original queue, the query's limit the most messages; the other parameters do not apply.
 */
final class RabbitDeadLetterSource implements DeadLetterSource {

	private final RabbitDeadLetterRedrive redrive;

	RabbitDeadLetterSource(RabbitDeadLetterRedrive redrive) {
		this.redrive = redrive;
	}

	@Override
	public String transport() {
		return "rabbit";
	}

	@Override
	public Object preview(String name, Query query) {
		return this.redrive.preview(name, query.limit());
	}

	@Override
	public Object redrive(String name, Query query) {
		return this.redrive.redrive(name, query.limit());
	}

}
