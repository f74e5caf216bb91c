package dev.idempotency.benchmarks.rabbit;

import java.nio.charset.StandardCharsets;

import dev.idempotency.benchmarks.support.LedgerTables;

import org.springframework.amqp.core.Message;
import org.springframework.jdbc.core.JdbcTemplate;

/** The business writes of the RabbitMQ listeners: a message's body is {@code account:amount}. */
final class RabbitLedger {

	private RabbitLedger() {
	}

	static void apply(JdbcTemplate jdbc, String key, Message message) {
		String body = new String(message.getBody(), StandardCharsets.UTF_8);
		int colon = body.indexOf(':');
		LedgerTables.apply(jdbc, key, Integer.parseInt(body.substring(0, colon)),
				Long.parseLong(body.substring(colon + 1)));
	}

}
