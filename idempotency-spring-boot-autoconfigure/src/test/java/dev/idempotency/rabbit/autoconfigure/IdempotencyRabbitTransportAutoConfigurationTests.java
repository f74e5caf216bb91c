package dev.idempotency.rabbit.autoconfigure;

import dev.idempotency.core.MessageTransport;
import dev.idempotency.rabbit.RabbitMessageTransport;
import org.junit.jupiter.api.Test;

import org.springframework.amqp.rabbit.annotation.RabbitListener;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link IdempotencyRabbitTransportAutoConfiguration}: RabbitMQ is a transport of the
 * engine whenever spring-rabbit is on the class path, whatever the adapter's switches say.
 */
class IdempotencyRabbitTransportAutoConfigurationTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(IdempotencyRabbitTransportAutoConfiguration.class));

	@Test
	void rabbitIsATransport() {
		this.contextRunner.run((context) -> assertThat(context).hasSingleBean(MessageTransport.class)
			.hasSingleBean(RabbitMessageTransport.class));
	}

	@Test
	void backsOffWithoutSpringRabbit() {
		this.contextRunner.withClassLoader(new FilteredClassLoader(RabbitListener.class))
			.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(MessageTransport.class));
	}

	@Test
	void staysWhenTheRabbitAdapterOrTheInterceptionIsOff() {
		this.contextRunner.withPropertyValues("idempotency.rabbit.enabled=false", "idempotency.enabled=false")
			.run((context) -> assertThat(context).hasSingleBean(RabbitMessageTransport.class));
	}

}
