package dev.idempotency.benchmarks.rabbit;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Properties;
import java.util.UUID;

import dev.idempotency.benchmarks.support.Database;
import dev.idempotency.benchmarks.support.InterleavedRounds;
import dev.idempotency.benchmarks.support.LedgerTables;
import dev.idempotency.benchmarks.support.Message;
import dev.idempotency.benchmarks.support.MessageStream;
import dev.idempotency.benchmarks.support.RunTables;
import dev.idempotency.benchmarks.support.TimedRound;
import dev.idempotency.benchmarks.support.Waits;

import org.springframework.amqp.core.MessageProperties;
import org.springframework.amqp.core.Queue;
import org.springframework.amqp.rabbit.connection.CachingConnectionFactory;
import org.springframework.amqp.rabbit.core.RabbitAdmin;
import org.springframework.amqp.rabbit.core.RabbitTemplate;

/**
 * One timed round of one listener application: fills its queue while its container is stopped,
 * starts the container, and stops the clock once every distinct message had its effect and the queue
 * has no message left to deliver; then stops the container (in-hand deliveries finish, unacknowledged
 * ones would go back to the queue) and checks the end state: exactly one effect per distinct id, the
 * balances, and an empty queue (every delivery acknowledged). Owns the connection to the local
 * RabbitMQ and the ledger tables of the run, on the database under test.
 */
final class RabbitRounds implements AutoCloseable {

	static final String HOST = System.getProperty("bench.rabbitmq.host", "127.0.0.1");

	static final int PORT = Integer.getInteger("bench.rabbitmq.port", 5672);

	private final String runId = UUID.randomUUID().toString().substring(0, 8);

	private final int messages;

	private final CachingConnectionFactory connectionFactory;

	private final RabbitAdmin rabbitAdmin;

	private final RabbitTemplate rabbit;

	private final RunTables tables;

	RabbitRounds(int messages, Database database) {
		this.messages = messages;
		this.connectionFactory = new CachingConnectionFactory(HOST, PORT);
		this.rabbitAdmin = new RabbitAdmin(this.connectionFactory);
		this.rabbit = new RabbitTemplate(this.connectionFactory);
		this.tables = new RunTables(database);
	}

	/** The listener application of that name, with its own queue. */
	RabbitListenerApp create(String name, int concurrency) {
		RabbitListenerApp app = new RabbitListenerApp(name, concurrency, this.runId, this.tables.database());
		// Declared now: the application's own declaration waits for its first connection.
		this.rabbitAdmin.declareQueue(new Queue(app.queue(), true));
		return app;
	}

	InterleavedRounds.Result run(RabbitListenerApp variant, int round) throws Exception {
		// Reset and fill the queue (not timed), while the container is stopped.
		variant.stop();
		this.tables.reset();
		this.rabbitAdmin.purgeQueue(variant.queue(), false);
		MessageStream source = new MessageStream(this.runId + "-" + variant.name() + "-c" + variant.concurrency()
				+ "-r" + round, LedgerTables.ACCOUNTS);
		for (int i = 0; i < this.messages; i++) {
			Message message = source.next();
			MessageProperties properties = new MessageProperties();
			properties.setMessageId(message.getKey());
			properties.setContentType(MessageProperties.CONTENT_TYPE_TEXT_PLAIN);
			this.rabbit.send("", variant.queue(), new org.springframework.amqp.core.Message(
					(message.getAccount() + ":" + message.getAmount()).getBytes(StandardCharsets.UTF_8), properties));
		}
		Waits.await(this.messages + " messages in " + variant.queue(), () -> ready(variant) == this.messages);
		long unique = source.expected(LedgerTables.ACCOUNTS, false).unique();
		// Timed: from starting the container until every distinct message had its effect and none waits.
		TimedRound timed = TimedRound.run(variant.consumerThreadPrefix(), this.messages, 10, variant::start,
				() -> this.tables.ledgerRows() >= unique && ready(variant) == 0);
		variant.stop();
		List<String> problems = this.tables.problems(source);
		long left = ready(variant);
		if (left != 0) {
			problems.add(left + " deliveries not acknowledged (back in the queue after the stop)");
		}
		return timed.result(problems, "messages=" + source.issued() + " ledger=" + this.tables.ledgerRows());
	}

	/** Messages ready for delivery in the variant's queue (not those delivered and unacknowledged). */
	private long ready(RabbitListenerApp variant) {
		Properties properties = this.rabbitAdmin.getQueueProperties(variant.queue());
		return (properties != null) ? ((Number) properties.get(RabbitAdmin.QUEUE_MESSAGE_COUNT)).longValue() : -1;
	}

	/** Deletes the queues of the run's variants. */
	void deleteQueue(RabbitListenerApp variant) {
		this.rabbitAdmin.deleteQueue(variant.queue());
	}

	@Override
	public void close() {
		this.connectionFactory.destroy();
		this.tables.close();
	}

}
