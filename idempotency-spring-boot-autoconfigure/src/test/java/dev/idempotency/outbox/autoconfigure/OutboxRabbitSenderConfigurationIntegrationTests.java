package dev.idempotency.outbox.autoconfigure;

import java.nio.charset.StandardCharsets;
import java.util.UUID;

import dev.idempotency.outbox.Outbox;
import dev.idempotency.outbox.OutboxStatus;
import dev.idempotency.outbox.jdbc.JdbcOutboxRepository;
import org.junit.jupiter.api.Test;

import org.springframework.amqp.core.Message;
import org.springframework.amqp.core.Queue;
import org.springframework.amqp.rabbit.connection.ConnectionFactory;
import org.springframework.amqp.rabbit.core.RabbitAdmin;
import org.springframework.amqp.rabbit.core.RabbitTemplate;
import org.springframework.boot.amqp.autoconfigure.RabbitAutoConfiguration;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceInitializationAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The settings docs/outbox.md gives for the RabbitMQ sender, on the local RabbitMQ: a message
 * published in a transaction reaches the queue the destination names, with the configured content
 * type, and its row is marked sent.
 */
class OutboxRabbitSenderConfigurationIntegrationTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class,
				DataSourceTransactionManagerAutoConfiguration.class, DataSourceInitializationAutoConfiguration.class,
				RabbitAutoConfiguration.class, IdempotencyOutboxAutoConfiguration.class))
		.withPropertyValues("spring.datasource.generate-unique-name=true", "idempotency.outbox.purge.interval=1h",
				// As documented:
				"idempotency.outbox.enabled=true", "spring.rabbitmq.host=127.0.0.1",
				"spring.rabbitmq.publisher-confirm-type=correlated", "spring.rabbitmq.publisher-returns=true",
				"idempotency.outbox.rabbit.content-type=text/plain");

	@Test
	void documentedSettingsSendAPublishedMessageToTheQueue() {
		this.contextRunner.run((context) -> {
			RabbitAdmin admin = new RabbitAdmin(context.getBean(ConnectionFactory.class));
			String queue = admin.declareQueue(new Queue("outbox-config-" + UUID.randomUUID(), false, false, true));
			try {
				Outbox outbox = context.getBean(Outbox.class);
				String messageId = new TransactionTemplate(context.getBean(PlatformTransactionManager.class))
					.execute((status) -> outbox.publish("rabbit:/" + queue, null, "hello"));
				Message message = new RabbitTemplate(context.getBean(ConnectionFactory.class)).receive(queue, 20_000);
				assertThat(message).isNotNull();
				assertThat(message.getMessageProperties().getMessageId()).isEqualTo(messageId);
				assertThat(message.getMessageProperties().getContentType()).isEqualTo("text/plain");
				assertThat(new String(message.getBody(), StandardCharsets.UTF_8)).isEqualTo("hello");
				JdbcOutboxRepository rows = context.getBean(JdbcOutboxRepository.class);
				await().until(() -> rows.find(messageId).status() == OutboxStatus.SENT);
			}
			finally {
				admin.deleteQueue(queue);
			}
		});
	}

}
