package dev.idempotency.outbox.autoconfigure;

import dev.idempotency.outbox.rabbit.RabbitOutboxSender;

import org.springframework.amqp.rabbit.connection.ConnectionFactory;
import org.springframework.amqp.rabbit.core.RabbitTemplate;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnSingleCandidate;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The outbox's RabbitMQ sender, on the application's RabbitMQ {@code ConnectionFactory}, when
 * Spring Boot configures it to confirm and return messages: an application that uses RabbitMQ for
 * other things and never sends to it through the outbox keeps starting without those settings (a
 * {@code rabbit:} row then has no sender and goes {@code DEAD}, counted and logged).
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnClass(RabbitTemplate.class)
@ConditionalOnBooleanProperty(name = "idempotency.outbox.rabbit.enabled", matchIfMissing = true)
class OutboxRabbitSenderConfiguration {

	@Bean
	@ConditionalOnSingleCandidate(ConnectionFactory.class)
	@ConditionalOnProperty(name = "spring.rabbitmq.publisher-confirm-type", havingValue = "correlated")
	@ConditionalOnBooleanProperty("spring.rabbitmq.publisher-returns")
	@ConditionalOnMissingBean
	RabbitOutboxSender rabbitOutboxSender(ConnectionFactory rabbitConnectionFactory,
			IdempotencyOutboxProperties properties) {
		return new RabbitOutboxSender(rabbitConnectionFactory, properties.getRabbit().getContentType());
	}

}
