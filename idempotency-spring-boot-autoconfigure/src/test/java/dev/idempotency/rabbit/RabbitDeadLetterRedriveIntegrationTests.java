package dev.idempotency.rabbit;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import org.springframework.amqp.core.Message;
import org.springframework.amqp.core.MessageProperties;
import org.springframework.amqp.core.QueueBuilder;
import org.springframework.amqp.rabbit.connection.CachingConnectionFactory;
import org.springframework.amqp.rabbit.core.RabbitAdmin;
import org.springframework.amqp.rabbit.core.RabbitTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link RabbitDeadLetterRedrive} on the local broker: a preview leaves the dead letters where they
 * are; a re-drive sends them back to their queue without the dead-letter headers.
 */
class RabbitDeadLetterRedriveIntegrationTests {

	private final CachingConnectionFactory connectionFactory = RabbitTestSupport.connectionFactory();

	private final RabbitAdmin admin = new RabbitAdmin(this.connectionFactory);

	private final RabbitTemplate rabbit = new RabbitTemplate(this.connectionFactory);

	private final String queue = RabbitTestSupport.uniqueName("rabbit-redrive");

	private final RabbitDeadLetterRedrive redrive = new RabbitDeadLetterRedrive(this.connectionFactory,
			new RabbitDeadLetters(this.connectionFactory, (name) -> null, Duration.ofSeconds(5), List::of), ".dlq");

	@AfterEach
	void cleanUp() {
		this.admin.deleteQueue(this.queue);
		this.admin.deleteQueue(this.queue + ".dlq");
		this.connectionFactory.destroy();
	}

	@Test
	void previewLeavesTheDeadLettersAndRedriveSendsThemBackWithoutTheirCause() {
		this.admin.declareQueue(QueueBuilder.nonDurable(this.queue).build());
		this.admin.declareQueue(QueueBuilder.nonDurable(this.queue + ".dlq").build());
		for (int i = 0; i < 3; i++) {
			MessageProperties properties = new MessageProperties();
			properties.setMessageId("m-" + i);
			properties.setHeader(RabbitDeadLetterHeaders.EXCEPTION_TYPE, IllegalStateException.class.getName());
			properties.setHeader(RabbitDeadLetterHeaders.ORIGINAL_QUEUE, this.queue);
			properties.setHeader("tenant", "acme");
			this.rabbit.send("", this.queue + ".dlq", new Message(("order " + i).getBytes(), properties));
		}
		Map<String, Object> preview = this.redrive.preview(this.queue, 10);
		assertThat(preview).containsEntry("found", 3).containsEntry("dryRun", true);
		assertThat(RabbitTestSupport.ready(this.admin, this.queue + ".dlq")).isEqualTo(3);
		assertThat(RabbitTestSupport.ready(this.admin, this.queue)).isZero();

		Map<String, Object> redriven = this.redrive.redrive(this.queue, 2);
		assertThat(redriven).containsEntry("redriven", 2).containsEntry("dryRun", false);
		assertThat(RabbitTestSupport.ready(this.admin, this.queue + ".dlq")).isEqualTo(1);
		List<Message> back = RabbitTestSupport.drain(this.rabbit, this.queue);
		assertThat(back).extracting((message) -> message.getMessageProperties().getMessageId())
			.containsExactly("m-0", "m-1");
		assertThat(back.get(0).getMessageProperties().getHeaders()).containsEntry("tenant", "acme")
			.doesNotContainKeys(RabbitDeadLetterHeaders.EXCEPTION_TYPE, RabbitDeadLetterHeaders.ORIGINAL_QUEUE);
	}

}
