package dev.idempotency.rabbit.autoconfigure;

import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import org.springframework.amqp.rabbit.connection.CachingConnectionFactory;
import org.springframework.amqp.rabbit.listener.SimpleMessageListenerContainer;
import org.springframework.boot.amqp.autoconfigure.RabbitAutoConfiguration;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link IdempotencyRabbitHealthAutoConfiguration} and {@link IdempotencyRabbitHealthIndicator}.
 */
class IdempotencyRabbitHealthAutoConfigurationTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(RabbitAutoConfiguration.class,
				IdempotencyRabbitAutoConfiguration.class, IdempotencyRabbitHealthAutoConfiguration.class))
		.withPropertyValues("idempotency.store.type=in-memory");

	@Test
	void theIndicatorJoinsTheAdapter() {
		this.contextRunner.run((context) -> assertThat(context).hasBean("idempotencyRabbitHealthIndicator"));
	}

	@Test
	void backsOffWhenSwitchedOffOrWithoutTheAdapter() {
		this.contextRunner.withPropertyValues("management.health.idempotencyrabbit.enabled=false")
			.run((context) -> assertThat(context).doesNotHaveBean(IdempotencyRabbitHealthIndicator.class));
		this.contextRunner.withPropertyValues("idempotency.rabbit.enabled=false")
			.run((context) -> assertThat(context).hasNotFailed()
				.doesNotHaveBean(IdempotencyRabbitHealthIndicator.class));
	}

	@Test
	void aContainerThatShouldRunAndDoesNotIsDown() {
		SimpleMessageListenerContainer container = new SimpleMessageListenerContainer(
				new CachingConnectionFactory("127.0.0.1", 1));
		container.setQueueNames("orders");
		container.setListenerId("points");
		Health health = new IdempotencyRabbitHealthIndicator(() -> List.of(container)).health();
		assertThat(health.getStatus()).isEqualTo(Status.DOWN);
		assertThat(health.getDetails().get("listeners")).isEqualTo(Map.of("points", Map.of("queues", List.of("orders"),
				"running", false, "autoStartup", true, "activeConsumers", 0)));
		container.setAutoStartup(false);
		assertThat(new IdempotencyRabbitHealthIndicator(() -> List.of(container)).health().getStatus())
			.as("a container that does not start with the application")
			.isEqualTo(Status.UP);
	}

}
