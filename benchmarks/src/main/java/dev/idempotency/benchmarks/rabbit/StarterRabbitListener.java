package dev.idempotency.benchmarks.rabbit;

import dev.idempotency.annotation.Idempotent;
import dev.idempotency.benchmarks.support.VariantApp;

import org.springframework.amqp.core.Message;
import org.springframework.amqp.rabbit.annotation.RabbitListener;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * The listener with the starter ({@code starter}): {@code @Idempotent} keyed by the AMQP
 * {@code message_id} (the default), acknowledged by the starter after the commit.
 */
public class StarterRabbitListener {

	private final JdbcTemplate jdbc;

	public StarterRabbitListener(JdbcTemplate jdbc) {
		this.jdbc = jdbc;
	}

	@RabbitListener(id = VariantApp.LISTENER_ID, queues = "${bench.queue}", autoStartup = "false")
	@Idempotent
	public void onMessage(Message message) {
		RabbitLedger.apply(this.jdbc, message.getMessageProperties().getMessageId(), message);
	}

}
