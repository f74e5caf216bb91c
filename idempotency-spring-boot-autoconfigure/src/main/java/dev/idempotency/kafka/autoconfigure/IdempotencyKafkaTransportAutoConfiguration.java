package dev.idempotency.kafka.autoconfigure;

import dev.idempotency.kafka.KafkaMessageTransport;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.kafka.annotation.KafkaListener;

/**
 * Kafka as a message transport of the engine, whenever spring-kafka is on the class path: how
 * {@code @KafkaListener} methods are named (their default namespace) and which Kafka client
 * exceptions are the infrastructure's. Apart from {@link IdempotencyKafkaAutoConfiguration} because
 * it is not switched off by {@code idempotency.enabled} or {@code idempotency.kafka.enabled}: a
 * listener's default namespace must not change with the adapter's switch, and the outbox relay
 * classifies failures without the interceptor.
 *
 * @since 0.2.0
 */
@AutoConfiguration
@ConditionalOnClass(KafkaListener.class)
public final class IdempotencyKafkaTransportAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	KafkaMessageTransport idempotencyKafkaTransport() {
		return new KafkaMessageTransport();
	}

}
