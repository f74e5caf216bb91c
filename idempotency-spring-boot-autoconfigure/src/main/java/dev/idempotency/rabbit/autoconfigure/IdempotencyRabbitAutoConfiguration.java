package dev.idempotency.rabbit.autoconfigure;

import dev.idempotency.autoconfigure.IdempotencyAutoConfiguration;
import dev.idempotency.core.DeliveryListener;
import dev.idempotency.rabbit.RabbitDeadLetterRedrive;
import dev.idempotency.rabbit.RabbitDeadLetters;
import dev.idempotency.rabbit.RabbitDeliveryContexts;
import dev.idempotency.rabbit.RabbitFailurePolicy;
import dev.idempotency.rabbit.RabbitListenerContainers;
import dev.idempotency.rabbit.RabbitRetrySettings;
import dev.idempotency.support.FailClosedCircuits;

import org.springframework.amqp.core.Declarables;
import org.springframework.amqp.core.Queue;
import org.springframework.amqp.rabbit.connection.ConnectionFactory;
import org.springframework.amqp.rabbit.listener.RabbitListenerEndpointRegistry;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.util.function.SingletonSupplier;

/**
 * RabbitMQ adapter: the listener containers of {@code @Idempotent} {@code @RabbitListener} methods
 * acknowledge manually, after commit; failures are retried in place with back-off, then published
 * to the queue's dead-letter exchange with their cause; with fail-closed on (the
 * {@link FailClosedCircuits} bean), an infrastructure failure holds the delivery until the stores
 * answer. A {@link RabbitDeadLetterRedrive} re-drives dead-letter queues on request.
 *
 * @since 0.2.0
 */
@AutoConfiguration(after = IdempotencyAutoConfiguration.class,
		afterName = "org.springframework.boot.amqp.autoconfigure.RabbitAutoConfiguration")
@ConditionalOnClass(RabbitListenerEndpointRegistry.class)
@ConditionalOnBean(ConnectionFactory.class)
@ConditionalOnBooleanProperty(name = { "idempotency.enabled", "idempotency.rabbit.enabled" }, matchIfMissing = true)
@EnableConfigurationProperties(IdempotencyRabbitProperties.class)
public final class IdempotencyRabbitAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	RabbitDeliveryContexts idempotencyRabbitDeliveryContexts(IdempotencyRabbitProperties properties) {
		return new RabbitDeliveryContexts(properties.getMessageIdHeader());
	}

	@Bean
	@ConditionalOnMissingBean
	RabbitFailurePolicy idempotencyRabbitFailurePolicy(IdempotencyRabbitProperties properties) {
		IdempotencyRabbitProperties.Retry retry = properties.getRetry();
		return new RabbitFailurePolicy(new RabbitRetrySettings(retry.getMaxAttempts(), retry.getInitialInterval(),
				retry.getMultiplier(), retry.getMaxInterval()));
	}

	@Bean
	@ConditionalOnMissingBean
	RabbitDeadLetters idempotencyRabbitDeadLetters(ConnectionFactory connectionFactory,
			IdempotencyRabbitProperties properties, ObjectProvider<Queue> queues,
			ObjectProvider<Declarables> declarables, ObjectProvider<DeliveryListener> listeners) {
		return new RabbitDeadLetters(connectionFactory,
				new QueueDeadLetterRoutes(queues, declarables, properties.getDeadLetter()),
				properties.getDeadLetter().getConfirmTimeout(), SingletonSupplier.of(() -> listeners.orderedStream().toList()));
	}

	@Bean
	@ConditionalOnMissingBean
	@ConditionalOnBean(RabbitListenerEndpointRegistry.class)
	RabbitListenerContainers idempotencyRabbitListenerContainers(
			ObjectProvider<RabbitListenerEndpointRegistry> registry, RabbitDeliveryContexts contexts,
			RabbitFailurePolicy policy, RabbitDeadLetters deadLetters, ObjectProvider<FailClosedCircuits> failClosed) {
		// Not the registry itself: a lifecycle bean's dependencies start first, and the containers must
		// be adapted before the registry starts them.
		return new RabbitListenerContainers(registry::getObject, contexts, policy, deadLetters,
				failClosed.getIfAvailable());
	}

	@Bean
	@ConditionalOnMissingBean
	RabbitDeadLetterRedrive idempotencyRabbitDeadLetterRedrive(ConnectionFactory connectionFactory,
			RabbitDeadLetters deadLetters, IdempotencyRabbitProperties properties) {
		return new RabbitDeadLetterRedrive(connectionFactory, deadLetters, properties.getDeadLetter().getQueueSuffix());
	}

}
