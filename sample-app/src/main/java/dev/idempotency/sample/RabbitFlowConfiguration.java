package dev.idempotency.sample;

import java.util.Map;

import org.springframework.amqp.core.BindingBuilder;
import org.springframework.amqp.core.Declarables;
import org.springframework.amqp.core.DirectExchange;
import org.springframework.amqp.core.FanoutExchange;
import org.springframework.amqp.core.Queue;
import org.springframework.amqp.support.converter.JacksonJsonMessageConverter;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The RabbitMQ flow's broker objects, declared by Spring AMQP's {@code RabbitAdmin} at the first
 * connection: the run's direct exchange, its queue (dead-lettering to a fanout exchange that feeds
 * {@code <queue>.dlq}), and a JSON message converter, which Spring Boot's listener container
 * factory uses to turn the outbox's JSON into an {@link OrderPlaced}. The queues expire an hour
 * after their last use, the exchanges with their last binding: runs sharing a broker leave nothing
 * behind for long.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnBooleanProperty(RabbitFlow.ENABLED)
class RabbitFlowConfiguration {

	private static final int EXPIRES_MILLIS = 3_600_000;

	@Bean
	Declarables rabbitFlowDeclarables(@Value("${" + RabbitFlow.QUEUE + "}") String queueName) {
		DirectExchange exchange = new DirectExchange(RabbitFlow.exchange(queueName), false, true);
		FanoutExchange deadLetterExchange = new FanoutExchange(RabbitFlow.deadLetterExchange(queueName), false, true);
		Queue queue = new Queue(queueName, false, false, false, Map.of("x-dead-letter-exchange",
				deadLetterExchange.getName(), "x-expires", EXPIRES_MILLIS));
		Queue deadLetters = new Queue(RabbitFlow.deadLetterQueue(queueName), false, false, false,
				Map.of("x-expires", EXPIRES_MILLIS));
		return new Declarables(exchange, deadLetterExchange, queue, deadLetters,
				BindingBuilder.bind(queue).to(exchange).with(RabbitFlow.ROUTING_KEY),
				BindingBuilder.bind(deadLetters).to(deadLetterExchange));
	}

	@Bean
	JacksonJsonMessageConverter rabbitJsonMessageConverter() {
		return new JacksonJsonMessageConverter();
	}

}
