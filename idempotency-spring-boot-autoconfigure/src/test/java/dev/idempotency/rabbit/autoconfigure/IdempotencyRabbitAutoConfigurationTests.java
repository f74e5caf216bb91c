package dev.idempotency.rabbit.autoconfigure;

import java.time.Duration;

import dev.idempotency.annotation.Idempotent;
import dev.idempotency.core.MessageFields;
import dev.idempotency.rabbit.IdempotentRabbitListener;
import dev.idempotency.rabbit.RabbitDeadLetterRedrive;
import dev.idempotency.rabbit.RabbitDeadLetterRoute;
import dev.idempotency.rabbit.RabbitDeadLetters;
import dev.idempotency.rabbit.RabbitDeliveryContexts;
import dev.idempotency.rabbit.RabbitFailurePolicy;
import dev.idempotency.rabbit.RabbitListenerContainers;
import org.junit.jupiter.api.Test;

import org.springframework.amqp.core.AcknowledgeMode;
import org.springframework.amqp.core.Declarables;
import org.springframework.amqp.core.QueueBuilder;
import org.springframework.amqp.rabbit.annotation.RabbitListener;
import org.springframework.amqp.rabbit.listener.AbstractMessageListenerContainer;
import org.springframework.amqp.rabbit.listener.RabbitListenerEndpointRegistry;
import org.springframework.boot.amqp.autoconfigure.RabbitAutoConfiguration;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Conditions of {@link IdempotencyRabbitAutoConfiguration}, its defaults, and the start-up checks of
 * the containers it adapts. No listener container starts: none needs the broker.
 */
class IdempotencyRabbitAutoConfigurationTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(
				AutoConfigurations.of(RabbitAutoConfiguration.class, IdempotencyRabbitAutoConfiguration.class))
		.withPropertyValues("idempotency.store.type=in-memory", "spring.rabbitmq.listener.simple.auto-startup=false");

	@Test
	void theAdapterIsProvided() {
		this.contextRunner.run((context) -> assertThat(context).hasSingleBean(RabbitListenerContainers.class)
			.hasSingleBean(RabbitDeliveryContexts.class)
			.hasSingleBean(RabbitFailurePolicy.class)
			.hasSingleBean(RabbitDeadLetters.class)
			.hasSingleBean(RabbitDeadLetterRedrive.class));
	}

	@Test
	void backsOffWhenSwitchedOffOrWithoutSpringRabbit() {
		this.contextRunner.withPropertyValues("idempotency.rabbit.enabled=false")
			.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(RabbitListenerContainers.class));
		this.contextRunner.withPropertyValues("idempotency.enabled=false")
			.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(RabbitListenerContainers.class));
		this.contextRunner.withClassLoader(new FilteredClassLoader(RabbitListenerEndpointRegistry.class))
			.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(RabbitListenerContainers.class));
	}

	@Test
	void defaultsArePinned() {
		IdempotencyRabbitProperties properties = new IdempotencyRabbitProperties();
		assertThat(properties.isEnabled()).isTrue();
		assertThat(properties.getMessageIdHeader()).isEqualTo(MessageFields.MESSAGE_ID);
		assertThat(properties.getRetry().getMaxAttempts()).isEqualTo(3);
		assertThat(properties.getRetry().getInitialInterval()).isEqualTo(Duration.ofSeconds(1));
		assertThat(properties.getRetry().getMultiplier()).isEqualTo(2.0);
		assertThat(properties.getRetry().getMaxInterval()).isEqualTo(Duration.ofSeconds(10));
		assertThat(properties.getDeadLetter().getExchange()).isNull();
		assertThat(properties.getDeadLetter().getRoutingKey()).isNull();
		assertThat(properties.getDeadLetter().getQueueSuffix()).isEqualTo(".dlq");
		assertThat(properties.getDeadLetter().getConfirmTimeout()).isEqualTo(Duration.ofSeconds(5));
	}

	@Test
	void aQueueDeclarationsDeadLetterExchangeWinsOverTheProperty() {
		this.contextRunner
			.withPropertyValues("idempotency.rabbit.dead-letter.exchange=fallback.dlx",
					"idempotency.rabbit.dead-letter.routing-key=dead")
			.withBean(Declarables.class,
					() -> new Declarables(QueueBuilder.durable("orders")
						.deadLetterExchange("orders.dlx")
						.deadLetterRoutingKey("orders")
						.build(), QueueBuilder.durable("plain").build()))
			.run((context) -> {
				RabbitDeadLetters deadLetters = context.getBean(RabbitDeadLetters.class);
				assertThat(deadLetters.routeOf("orders")).isEqualTo(new RabbitDeadLetterRoute("orders.dlx", "orders"));
				assertThat(deadLetters.routeOf("plain")).isEqualTo(new RabbitDeadLetterRoute("fallback.dlx", "dead"));
				assertThat(deadLetters.routeOf("undeclared"))
					.isEqualTo(new RabbitDeadLetterRoute("fallback.dlx", "dead"));
			});
		this.contextRunner.run((context) -> assertThat(context.getBean(RabbitDeadLetters.class).routeOf("orders"))
			.isNull());
	}

	@Test
	void theContainerOfAnIdempotentListenerAcknowledgesManuallyThroughTheAdapter() {
		this.contextRunner.withBean(IdempotentOrders.class).withBean(PlainOrders.class).run((context) -> {
			assertThat(context).hasNotFailed();
			RabbitListenerEndpointRegistry registry = context.getBean(RabbitListenerEndpointRegistry.class);
			AbstractMessageListenerContainer idempotent = (AbstractMessageListenerContainer) registry
				.getListenerContainer("idempotent");
			assertThat(idempotent.getAcknowledgeMode()).isEqualTo(AcknowledgeMode.MANUAL);
			assertThat(idempotent.getMessageListener()).isInstanceOf(IdempotentRabbitListener.class);
			AbstractMessageListenerContainer plain = (AbstractMessageListenerContainer) registry
				.getListenerContainer("plain");
			assertThat(plain.getAcknowledgeMode()).isEqualTo(AcknowledgeMode.AUTO);
			assertThat(plain.getMessageListener()).isNotInstanceOf(IdempotentRabbitListener.class);
		});
	}

	@Test
	void anIdempotentListenerWithAcknowledgeModeNoneFailsStartUp() {
		this.contextRunner.withPropertyValues("spring.rabbitmq.listener.simple.acknowledge-mode=none")
			.withBean(IdempotentOrders.class)
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.rootCause()
				.hasMessageContaining("acknowledge mode NONE")
				.hasMessageContaining("spring.rabbitmq.listener.simple.acknowledge-mode=none"));
	}

	@Test
	void aListenerWithoutIdempotentMethodsMayKeepAcknowledgeModeNone() {
		this.contextRunner.withPropertyValues("spring.rabbitmq.listener.simple.acknowledge-mode=none")
			.withBean(PlainOrders.class)
			.run((context) -> assertThat(context).hasNotFailed());
	}

	static class IdempotentOrders {

		@RabbitListener(id = "idempotent", queues = "orders")
		@Idempotent
		public void onOrder(String order) {
		}

	}

	static class PlainOrders {

		@RabbitListener(id = "plain", queues = "orders")
		public void onOrder(String order) {
		}

	}

}
