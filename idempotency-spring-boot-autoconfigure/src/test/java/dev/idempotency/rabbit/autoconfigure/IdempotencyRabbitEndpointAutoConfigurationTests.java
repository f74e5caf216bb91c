package dev.idempotency.rabbit.autoconfigure;

import java.time.Duration;
import java.util.List;

import dev.idempotency.autoconfigure.actuate.DeadLetterSource;
import dev.idempotency.autoconfigure.actuate.IdempotencyEndpoint;
import dev.idempotency.autoconfigure.actuate.IdempotencyEndpointAutoConfiguration;
import dev.idempotency.core.IdempotencyStore;
import dev.idempotency.rabbit.RabbitDeadLetterRedrive;
import dev.idempotency.rabbit.RabbitDeadLetters;
import dev.idempotency.support.InMemoryIdempotencyStore;
import org.junit.jupiter.api.Test;

import org.springframework.amqp.rabbit.connection.CachingConnectionFactory;
import org.springframework.boot.actuate.autoconfigure.endpoint.EndpointAutoConfiguration;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link IdempotencyRabbitEndpointAutoConfiguration}: RabbitMQ's dead-letter queues in the
 * {@code idempotency} endpoint when Actuator, the endpoint, a store and the adapter's
 * {@link RabbitDeadLetterRedrive} are there.
 */
class IdempotencyRabbitEndpointAutoConfigurationTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(EndpointAutoConfiguration.class,
				IdempotencyEndpointAutoConfiguration.class, IdempotencyRabbitEndpointAutoConfiguration.class))
		.withBean(IdempotencyStore.class, InMemoryIdempotencyStore::new)
		.withBean(RabbitDeadLetterRedrive.class, IdempotencyRabbitEndpointAutoConfigurationTests::redrive)
		.withPropertyValues("management.endpoints.web.exposure.include=idempotency");

	@Test
	void rabbitDeadLettersJoinTheEndpoint() {
		this.contextRunner.run((context) -> {
			assertThat(context).hasBean("idempotencyRabbitDeadLetterSource");
			assertThat(context.getBean(DeadLetterSource.class).transport()).isEqualTo("rabbit");
			assertThat(context.getBean(IdempotencyEndpoint.class).overview().deadLetters()).containsExactly("rabbit");
		});
	}

	@Test
	void backsOffWhenTheEndpointIsNotExposedOrThereIsNoStore() {
		this.contextRunner.withPropertyValues("management.endpoints.web.exposure.include=health")
			.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(DeadLetterSource.class));
		new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(EndpointAutoConfiguration.class,
					IdempotencyRabbitEndpointAutoConfiguration.class))
			.withBean(RabbitDeadLetterRedrive.class, IdempotencyRabbitEndpointAutoConfigurationTests::redrive)
			.withPropertyValues("management.endpoints.web.exposure.include=idempotency")
			.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(DeadLetterSource.class));
	}

	private static RabbitDeadLetterRedrive redrive() {
		CachingConnectionFactory connectionFactory = new CachingConnectionFactory("127.0.0.1", 1);
		return new RabbitDeadLetterRedrive(connectionFactory,
				new RabbitDeadLetters(connectionFactory, (queue) -> null, Duration.ofSeconds(1), List::of), ".dlq");
	}

}
