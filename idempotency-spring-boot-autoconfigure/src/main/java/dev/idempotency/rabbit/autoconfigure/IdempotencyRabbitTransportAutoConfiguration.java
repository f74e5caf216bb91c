package dev.idempotency.rabbit.autoconfigure;

import dev.idempotency.rabbit.RabbitMessageTransport;

import org.springframework.amqp.rabbit.annotation.RabbitListener;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/**
 * RabbitMQ as a message transport of the engine, whenever spring-rabbit is on the class path: how
 * {@code @RabbitListener} methods are named (their default namespace) and which AMQP client
 * exceptions are the infrastructure's. Apart from {@link IdempotencyRabbitAutoConfiguration} because
 * it is not switched off by {@code idempotency.enabled} or {@code idempotency.rabbit.enabled}: a
 * listener's default namespace must not change with the adapter's switch.
 *
 * @since 0.2.0
 */
@AutoConfiguration
@ConditionalOnClass(RabbitListener.class)
public final class IdempotencyRabbitTransportAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	RabbitMessageTransport idempotencyRabbitTransport() {
		return new RabbitMessageTransport();
	}

}
