package dev.idempotency.benchmarks.rabbit;

import java.io.IOException;
import java.time.Duration;
import java.time.Instant;

import com.rabbitmq.client.Channel;
import dev.idempotency.benchmarks.support.LedgerTables;
import dev.idempotency.benchmarks.support.VariantApp;

import org.springframework.amqp.core.Message;
import org.springframework.amqp.rabbit.annotation.RabbitListener;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * The baseline ({@code hand}): a {@code MANUAL}-ack listener that, in one JDBC transaction, inserts
 * the message id into the dedup table with {@code ON CONFLICT DO NOTHING} (MariaDB:
 * {@code INSERT IGNORE}) and applies the business writes if it was inserted, then acknowledges the
 * delivery once the transaction committed (a duplicate is acknowledged too). A failure rejects the
 * delivery back to the queue.
 */
public class HandRabbitListener {

	private final JdbcTemplate jdbc;

	private final TransactionTemplate transactions;

	private final LedgerTables tables;

	private final String insertSql;

	public HandRabbitListener(JdbcTemplate jdbc, TransactionTemplate transactions, LedgerTables tables) {
		this.jdbc = jdbc;
		this.transactions = transactions;
		this.tables = tables;
		this.insertSql = tables.insertOrIgnore();
	}

	@RabbitListener(id = VariantApp.LISTENER_ID, queues = "${bench.queue}", autoStartup = "false",
			ackMode = "MANUAL")
	public void onMessage(Message message, Channel channel) throws IOException {
		long tag = message.getMessageProperties().getDeliveryTag();
		String key = message.getMessageProperties().getMessageId();
		try {
			this.transactions.executeWithoutResult((status) -> {
				Instant now = Instant.now();
				if (this.jdbc.update(this.insertSql, "hand", key, "COMPLETED", this.tables.timestamp(now),
						this.tables.timestamp(now.plus(Duration.ofHours(1)))) == 1) {
					RabbitLedger.apply(this.jdbc, key, message);
				}
			});
		}
		catch (RuntimeException ex) {
			channel.basicNack(tag, false, true);
			throw ex;
		}
		channel.basicAck(tag, false);
	}

}
