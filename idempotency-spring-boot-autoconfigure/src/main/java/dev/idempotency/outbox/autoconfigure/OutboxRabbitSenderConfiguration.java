package dev.idempotency.outbox.autoconfigure;

import dev.idempotency.outbox.rabbit.RabbitOutboxSender;

import org.springframework.amqp.rabbit.connection.ConnectionFactory;
import org.springframework.amqp.rabbit.core.RabbitTemplate;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnSingleCandidate;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The outbox's RabbitMQ sender, on the application's RabbitMQ {@code ConnectionFactory}, which must
 * confirm and return messages (the sender's constructor fails start-up otherwise, saying which
 * settings to change).
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnClass(RabbitTemplate.class)
@ConditionalOnBooleanProperty(name = "idempotency.outbox.rabbit.enabled", matchIfMissing = true)
class OutboxRabbitSenderConfiguration {

	@Bean
	@ConditionalOnSingleCandidate(ConnectionFactory.class)
	@ConditionalOnMissingBean
	RabbitOutboxSender rabbitOutboxSender(ConnectionFactory rabbitConnectionFactory,
			IdempotencyOutboxProperties properties) {
		return new RabbitOutboxSender(rabbitConnectionFactory, properties.getRabbit().getContentType());
	}

}
