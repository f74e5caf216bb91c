package dev.idempotency.outbox.autoconfigure;

import dev.idempotency.outbox.kafka.KafkaOutboxSender;

import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnSingleCandidate;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.kafka.core.KafkaOperations;

/**
 * The outbox's Kafka sender, on the application's {@code KafkaTemplate}.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnClass(KafkaOperations.class)
class OutboxKafkaSenderConfiguration {

	@Bean
	@ConditionalOnSingleCandidate(KafkaOperations.class)
	@ConditionalOnMissingBean
	KafkaOutboxSender kafkaOutboxSender(KafkaOperations<?, ?> kafkaOperations) {
		return new KafkaOutboxSender(kafkaOperations);
	}

}
