package dev.idempotency.outbox.autoconfigure;

import dev.idempotency.outbox.Outbox;
import dev.idempotency.outbox.OutboxSender;
import dev.idempotency.outbox.rabbit.RabbitOutboxSender;
import org.junit.jupiter.api.Test;

import org.springframework.amqp.rabbit.connection.CachingConnectionFactory;
import org.springframework.amqp.rabbit.connection.CachingConnectionFactory.ConfirmType;
import org.springframework.amqp.rabbit.core.RabbitTemplate;
import org.springframework.boot.amqp.autoconfigure.RabbitAutoConfiguration;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * When the outbox gets a RabbitMQ sender, and a connection factory that cannot confirm or return
 * messages failing start-up. The factories never connect.
 */
class OutboxRabbitSenderConfigurationTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class,
				DataSourceTransactionManagerAutoConfiguration.class, RabbitAutoConfiguration.class,
				IdempotencyOutboxAutoConfiguration.class))
		.withPropertyValues("spring.datasource.generate-unique-name=true", "idempotency.outbox.enabled=true",
				"idempotency.outbox.purge.interval=1h", "idempotency.outbox.relay.poll-interval=1h");

	private final ApplicationContextRunner confirming = this.contextRunner.withPropertyValues(
			"spring.rabbitmq.publisher-confirm-type=correlated", "spring.rabbitmq.publisher-returns=true");

	@Test
	void rabbitSenderWhenTheConnectionFactoryConfirmsAndReturns() {
		this.confirming.withPropertyValues("idempotency.outbox.rabbit.content-type=text/plain")
			.run((context) -> assertThat(context).hasSingleBean(RabbitOutboxSender.class));
	}

	@Test
	void withoutConfirmsAndReturnsThereIsNoSenderAndStartUpGoesOn() {
		this.contextRunner
			.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(RabbitOutboxSender.class));
		this.contextRunner.withPropertyValues("spring.rabbitmq.publisher-confirm-type=correlated")
			.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(RabbitOutboxSender.class));
		this.contextRunner.withPropertyValues("spring.rabbitmq.publisher-returns=true")
			.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(RabbitOutboxSender.class));
	}

	@Test
	void rabbitSenderCanBeSwitchedOff() {
		this.contextRunner.withPropertyValues("idempotency.outbox.rabbit.enabled=false")
			.run((context) -> assertThat(context).hasNotFailed()
				.hasSingleBean(Outbox.class)
				.doesNotHaveBean(OutboxSender.class));
	}

	@Test
	void backsOffWithoutSpringRabbit() {
		this.contextRunner.withClassLoader(new FilteredClassLoader(RabbitTemplate.class))
			.run((context) -> assertThat(context).hasNotFailed()
				.hasSingleBean(Outbox.class)
				.doesNotHaveBean(OutboxSender.class));
	}

	@Test
	void applicationsSenderWins() {
		this.confirming.withBean("mySender", RabbitOutboxSender.class,
				OutboxRabbitSenderConfigurationTests::applicationsSender)
			.run((context) -> assertThat(context).getBeanNames(RabbitOutboxSender.class).containsExactly("mySender"));
	}

	private static RabbitOutboxSender applicationsSender() {
		CachingConnectionFactory factory = new CachingConnectionFactory();
		factory.setPublisherConfirmType(ConfirmType.CORRELATED);
		factory.setPublisherReturns(true);
		return new RabbitOutboxSender(factory, RabbitOutboxSender.DEFAULT_CONTENT_TYPE);
	}

}
