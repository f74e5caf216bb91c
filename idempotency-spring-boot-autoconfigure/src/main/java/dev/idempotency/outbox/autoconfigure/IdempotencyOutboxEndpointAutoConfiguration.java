package dev.idempotency.outbox.autoconfigure;

import dev.idempotency.autoconfigure.actuate.IdempotencyEndpoint;
import dev.idempotency.autoconfigure.actuate.IdempotencyEndpointAutoConfiguration;
import dev.idempotency.core.IdempotencyStore;
import dev.idempotency.outbox.OutboxAdmin;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.context.annotation.Bean;

/**
 * The {@code outbox} section of the {@code idempotency} Actuator endpoint (dead outbox messages, and
 * the backlog in the overview), whenever the endpoint is there (the conditions of
 * {@link IdempotencyEndpointAutoConfiguration}): without an outbox it answers that the outbox is not
 * enabled.
 *
 * @since 0.2.0
 */
@AutoConfiguration(after = { IdempotencyOutboxAutoConfiguration.class, IdempotencyEndpointAutoConfiguration.class })
@ConditionalOnClass({ Endpoint.class, ConditionalOnAvailableEndpoint.class })
@ConditionalOnAvailableEndpoint(IdempotencyEndpoint.class)
@ConditionalOnBean(IdempotencyStore.class)
public final class IdempotencyOutboxEndpointAutoConfiguration {

	@Bean
	OutboxSection idempotencyEndpointOutboxSection(ObjectProvider<OutboxAdmin> outbox) {
		return new OutboxSection(outbox.getIfUnique());
	}

}
