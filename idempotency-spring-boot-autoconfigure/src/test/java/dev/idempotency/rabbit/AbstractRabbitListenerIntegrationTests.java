package dev.idempotency.rabbit;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import com.rabbitmq.client.Channel;
import com.rabbitmq.client.ShutdownSignalException;
import dev.idempotency.annotation.Idempotent;
import dev.idempotency.core.InvalidIdempotencyKeyException;
import dev.idempotency.core.NonRetryableIdempotencyException;
import dev.idempotency.metrics.IdempotencyMeters;
import dev.idempotency.rabbit.RabbitTestSupport.Order;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestInstance.Lifecycle;

import org.springframework.amqp.core.AcknowledgeMode;
import org.springframework.amqp.core.Binding;
import org.springframework.amqp.core.BindingBuilder;
import org.springframework.amqp.core.Declarables;
import org.springframework.amqp.core.DirectExchange;
import org.springframework.amqp.core.Message;
import org.springframework.amqp.core.Queue;
import org.springframework.amqp.core.QueueBuilder;
import org.springframework.amqp.rabbit.annotation.RabbitListener;
import org.springframework.amqp.rabbit.connection.CachingConnectionFactory;
import org.springframework.amqp.rabbit.connection.ChannelListener;
import org.springframework.amqp.rabbit.connection.ChannelProxy;
import org.springframework.amqp.rabbit.core.RabbitAdmin;
import org.springframework.amqp.rabbit.core.RabbitTemplate;
import org.springframework.amqp.rabbit.listener.AbstractMessageListenerContainer;
import org.springframework.amqp.rabbit.listener.RabbitListenerEndpointRegistry;
import org.springframework.amqp.support.converter.JacksonJsonMessageConverter;
import org.springframework.amqp.support.converter.MessageConverter;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.core.Ordered;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * {@code @Idempotent} {@code @RabbitListener} methods on the local broker with the JDBC store, with
 * Spring Boot's default configuration (Hikari's auto-commit on, the default container factory in its
 * default acknowledgement mode). One application per class; its queues have random names and are
 * deleted afterwards. The orders queue is a quorum queue, consumed by 4 consumers with a prefetch of
 * 10; its dead letters go through a dead-letter exchange to {@code <queue>.dlq}.
 */
@TestInstance(Lifecycle.PER_CLASS)
abstract class AbstractRabbitListenerIntegrationTests {

	private final String run = RabbitTestSupport.uniqueName("rabbit-it");

	private final String orders = this.run + ".orders";

	private final String keyed = this.run + ".keyed";

	private final String ledger = "rabbit_ledger_" + this.run.substring(this.run.length() - 8);

	private ConfigurableApplicationContext context;

	private RabbitTemplate rabbit;

	private JdbcTemplate jdbc;

	private OrderListener listener;

	private MeterRegistry meters;

	/**
	 * The data source properties of the database under test.
	 * @return Spring Boot properties
	 */
	protected abstract String[] databaseProperties();

	@BeforeAll
	void start() {
		List<String> properties = new ArrayList<>(List.of(RabbitTestSupport.BROKER_PROPERTIES));
		properties.addAll(List.of(databaseProperties()));
		properties.addAll(List.of("idempotency.jdbc.initialize-schema=always", "idempotency.jdbc.purge.enabled=false",
				"idempotency.rabbit.retry.initial-interval=100ms", "idempotency.rabbit.retry.max-attempts=3",
				"it.orders=" + this.orders, "it.keyed=" + this.keyed, "it.ledger=" + this.ledger,
				"it.dlx=" + this.run + ".dlx"));
		this.context = new SpringApplicationBuilder(RabbitApplication.class).web(WebApplicationType.NONE)
			.properties(properties.toArray(String[]::new))
			.run();
		this.rabbit = this.context.getBean(RabbitTemplate.class);
		this.jdbc = this.context.getBean(JdbcTemplate.class);
		this.listener = this.context.getBean(OrderListener.class);
		this.meters = this.context.getBean(MeterRegistry.class);
	}

	@AfterAll
	void stop() {
		if (this.context == null) {
			return;
		}
		RabbitAdmin admin = this.context.getBean(RabbitAdmin.class);
		this.context.getBean(RabbitListenerEndpointRegistry.class).stop();
		for (String queue : List.of(this.orders, this.keyed, this.orders + ".dlq", this.keyed + ".dlq")) {
			admin.deleteQueue(queue);
		}
		admin.deleteExchange(this.run + ".dlx");
		this.jdbc.execute("DROP TABLE IF EXISTS " + this.ledger);
		this.jdbc.update("DELETE FROM idempotency_record WHERE namespace LIKE ?", this.run + "%");
		this.context.close();
	}

	/** A second acknowledgement of a delivery makes the broker close the channel: none may happen. */
	@AfterEach
	void noChannelWasClosedByTheBroker() {
		assertThat(this.context.getBean(ChannelErrors.class).count()).as("channels closed by the broker").isZero();
	}

	@Test
	void theContainersOfIdempotentListenersAcknowledgeManually() {
		RabbitListenerEndpointRegistry registry = this.context.getBean(RabbitListenerEndpointRegistry.class);
		AbstractMessageListenerContainer orders = (AbstractMessageListenerContainer) registry
			.getListenerContainer("orders");
		assertThat(orders.getAcknowledgeMode()).isEqualTo(AcknowledgeMode.MANUAL);
		assertThat(orders.getMessageListener()).isInstanceOf(IdempotentRabbitListener.class);
	}

	@Test
	void aMessageIdDeliveredTwiceIsAppliedOnceAndBothDeliveriesAreAcknowledged() {
		String order = "dup-" + this.run;
		RabbitTestSupport.send(this.rabbit, this.orders, "m-" + order, order, 5);
		RabbitTestSupport.send(this.rabbit, this.orders, "m-" + order, order, 5);
		await().atMost(20, TimeUnit.SECONDS).until(() -> outcomes("duplicate") >= 1 && applied(order) == 1);
		assertThat(this.listener.invocations(order)).isEqualTo(1);
		assertThat(applied(order)).isEqualTo(1);
		assertThat(RabbitTestSupport.ready(this.context.getBean(RabbitAdmin.class), this.orders)).isZero();
	}

	@Test
	void aMessageWithoutIdIsDeadLetteredAtOnceWithItsCause() {
		String order = "noid-" + this.run;
		RabbitTestSupport.send(this.rabbit, this.orders, null, order, 1);
		Message deadLetter = awaitDeadLetter(this.orders + ".dlq", order);
		Map<String, Object> headers = deadLetter.getMessageProperties().getHeaders();
		assertThat(headers).containsEntry(RabbitDeadLetterHeaders.EXCEPTION_TYPE,
				InvalidIdempotencyKeyException.class.getName())
			.containsEntry(RabbitDeadLetterHeaders.REASON, "not-retryable")
			.containsEntry(RabbitDeadLetterHeaders.ORIGINAL_QUEUE, this.orders)
			.containsEntry(RabbitDeadLetterHeaders.ATTEMPTS, 1);
		assertThat((String) headers.get(RabbitDeadLetterHeaders.EXCEPTION_MESSAGE)).contains("a message without a key");
		assertThat(this.listener.invocations(order)).isZero();
		// The meter counts once the publish returned, which can be after the test received the dead letter.
		await().atMost(10, TimeUnit.SECONDS)
			.untilAsserted(() -> assertThat(deadLettered("InvalidIdempotencyKeyException")).isPositive());
	}

	@Test
	void aPoisonMessageIsRetriedThenDeadLetteredWithItsCause() {
		String order = "poison-" + this.run;
		RabbitTestSupport.send(this.rabbit, this.orders, "m-" + order, order, 1);
		Message deadLetter = awaitDeadLetter(this.orders + ".dlq", order);
		assertThat(deadLetter.getMessageProperties().getHeaders())
			.containsEntry(RabbitDeadLetterHeaders.EXCEPTION_TYPE, IllegalStateException.class.getName())
			.containsEntry(RabbitDeadLetterHeaders.EXCEPTION_MESSAGE, "poison order " + order)
			.containsEntry(RabbitDeadLetterHeaders.REASON, "attempts-exhausted")
			.containsEntry(RabbitDeadLetterHeaders.ATTEMPTS, 3)
			.containsKey(RabbitDeadLetterHeaders.EXCEPTION_STACKTRACE);
		assertThat(deadLetter.getMessageProperties().getMessageId()).isEqualTo("m-" + order);
		assertThat(this.listener.invocations(order)).isEqualTo(3);
		assertThat(applied(order)).isZero();
	}

	@Test
	void aMessageThatFailsTwiceThenSucceedsIsAppliedOnceWithoutDeadLetter() {
		String order = "flaky-" + this.run;
		RabbitTestSupport.send(this.rabbit, this.orders, "m-" + order, order, 1);
		await().atMost(20, TimeUnit.SECONDS).until(() -> applied(order) == 1);
		assertThat(this.listener.invocations(order)).isEqualTo(3);
		assertThat(deadLetters(this.orders + ".dlq", order)).isEmpty();
	}

	@Test
	void aNonRetryableFailureIsDeadLetteredAtOnce() {
		String order = "fatal-" + this.run;
		RabbitTestSupport.send(this.rabbit, this.orders, "m-" + order, order, 1);
		Message deadLetter = awaitDeadLetter(this.orders + ".dlq", order);
		assertThat(deadLetter.getMessageProperties().getHeaders())
			.containsEntry(RabbitDeadLetterHeaders.EXCEPTION_TYPE, NonRetryableIdempotencyException.class.getName())
			.containsEntry(RabbitDeadLetterHeaders.ATTEMPTS, 1);
		assertThat(this.listener.invocations(order)).isEqualTo(1);
	}

	@Test
	void anUnreadablePayloadIsDeadLetteredAtOnceWithTheConverterFailure() {
		String marker = "unreadable-" + this.run;
		RabbitTestSupport.sendRaw(this.rabbit, this.orders, "m-" + marker, "{\"orderId\": \"" + marker + "\", oops");
		Message deadLetter = awaitDeadLetter(this.orders + ".dlq", marker);
		assertThat(deadLetter.getMessageProperties().getHeaders())
			.containsEntry(RabbitDeadLetterHeaders.REASON, "bad-input")
			.containsEntry(RabbitDeadLetterHeaders.ATTEMPTS, 1);
		assertThat(deadLettered(null)).isPositive();
	}

	@Test
	void aKeyExpressionThatFailsIsDeadLetteredAtOnce() {
		String order = "keyed-" + this.run;
		RabbitTestSupport.send(this.rabbit, this.keyed, "m-" + order, order, 1);
		Message deadLetter = awaitDeadLetter(this.keyed + ".dlq", order);
		assertThat(deadLetter.getMessageProperties().getHeaders())
			.containsEntry(RabbitDeadLetterHeaders.EXCEPTION_TYPE, InvalidIdempotencyKeyException.class.getName())
			.containsEntry(RabbitDeadLetterHeaders.REASON, "not-retryable")
			.containsEntry(RabbitDeadLetterHeaders.ATTEMPTS, 1);
		Map<String, Object> headers = deadLetter.getMessageProperties().getHeaders();
		assertThat((String) headers.get(RabbitDeadLetterHeaders.EXCEPTION_MESSAGE))
			.contains("#order.noSuchMethod()");
	}

	@Test
	void aChannelLostAfterTheCommitAndBeforeTheAcknowledgementRedeliversTheMessageAndTheRedeliveryIsSkipped() {
		String order = "crash-" + this.run;
		double duplicatesBefore = outcomes("duplicate");
		RabbitTestSupport.send(this.rabbit, this.orders, "m-" + order, order, 7);
		await().atMost(30, TimeUnit.SECONDS).until(() -> outcomes("duplicate") > duplicatesBefore);
		assertThat(this.listener.invocations(order)).as("method runs").isEqualTo(1);
		assertThat(this.listener.channelsClosed()).as("channels closed after the commit").isEqualTo(1);
		assertThat(applied(order)).isEqualTo(1);
		assertThat(deadLetters(this.orders + ".dlq", order)).isEmpty();
	}

	@Test
	void fourConsumersWithPrefetchApplyEachOrderOnceDespiteRedeliveredDuplicates() {
		String prefix = "bulk-" + this.run + "-";
		int count = 300;
		for (int i = 0; i < count; i++) {
			RabbitTestSupport.send(this.rabbit, this.orders, "m-" + prefix + i, prefix + i, i);
			if (i % 4 == 0) {
				RabbitTestSupport.send(this.rabbit, this.orders, "m-" + prefix + i, prefix + i, i);
			}
		}
		await().atMost(60, TimeUnit.SECONDS)
			.until(() -> this.jdbc.queryForObject("SELECT COUNT(DISTINCT order_id) FROM " + this.ledger
					+ " WHERE order_id LIKE ?", Integer.class, prefix + "%") == count);
		await().atMost(20, TimeUnit.SECONDS)
			.until(() -> RabbitTestSupport.ready(this.context.getBean(RabbitAdmin.class), this.orders) == 0);
		assertThat(this.jdbc.queryForList("SELECT order_id FROM " + this.ledger
				+ " WHERE order_id LIKE ? GROUP BY order_id HAVING COUNT(*) > 1", String.class, prefix + "%"))
			.as("orders applied twice")
			.isEmpty();
		assertThat(this.listener.threads()).as("consumer threads").hasSizeGreaterThan(1);
	}

	private int applied(String order) {
		return this.jdbc.queryForObject("SELECT COUNT(*) FROM " + this.ledger + " WHERE order_id = ?", Integer.class,
				order);
	}

	private double outcomes(String outcome) {
		return this.meters.find(IdempotencyMeters.INVOCATIONS)
			.tag(IdempotencyMeters.OUTCOME_TAG, outcome)
			.timers()
			.stream()
			.filter((timer) -> timer.getId().getTag(IdempotencyMeters.NAMESPACE_TAG).startsWith(this.orders))
			.mapToDouble((timer) -> timer.count())
			.sum();
	}

	private double deadLettered(String exception) {
		var search = this.meters.find(IdempotencyMeters.DEAD_LETTERED);
		if (exception != null) {
			search = search.tag(IdempotencyMeters.EXCEPTION_TAG, exception);
		}
		return search.counters().stream().mapToDouble(Counter::count).sum();
	}

	private final Map<String, List<Message>> deadLetterQueues = new ConcurrentHashMap<>();

	private List<Message> deadLetters(String queue, String marker) {
		List<Message> seen = this.deadLetterQueues.computeIfAbsent(queue, (name) -> new ArrayList<>());
		synchronized (seen) {
			seen.addAll(RabbitTestSupport.drain(this.rabbit, queue));
			return seen.stream().filter((message) -> new String(message.getBody()).contains(marker)).toList();
		}
	}

	private Message awaitDeadLetter(String queue, String marker) {
		await().atMost(20, TimeUnit.SECONDS).until(() -> !deadLetters(queue, marker).isEmpty());
		return deadLetters(queue, marker).get(0);
	}

	@SpringBootConfiguration
	@EnableAutoConfiguration
	static class RabbitApplication {

		@Bean
		SimpleMeterRegistry meterRegistry() {
			return new SimpleMeterRegistry();
		}

		@Bean
		ChannelErrors channelErrors(CachingConnectionFactory connectionFactory) {
			ChannelErrors errors = new ChannelErrors();
			connectionFactory.addChannelListener(errors);
			return errors;
		}

		@Bean
		MessageConverter jsonMessageConverter() {
			return new JacksonJsonMessageConverter();
		}

		@Bean
		Declarables queues(@Value("${it.orders}") String orders, @Value("${it.keyed}") String keyed,
				@Value("${it.dlx}") String dlx) {
			DirectExchange deadLetterExchange = new DirectExchange(dlx, false, true);
			Queue ordersQueue = QueueBuilder.durable(orders).quorum().deadLetterExchange(dlx)
				.deadLetterRoutingKey(orders)
				.build();
			Queue keyedQueue = QueueBuilder.nonDurable(keyed)
				.deadLetterExchange(dlx)
				.deadLetterRoutingKey(keyed)
				.build();
			Queue ordersDlq = QueueBuilder.nonDurable(orders + ".dlq").build();
			Queue keyedDlq = QueueBuilder.nonDurable(keyed + ".dlq").build();
			Binding ordersBinding = BindingBuilder.bind(ordersDlq).to(deadLetterExchange).with(orders);
			Binding keyedBinding = BindingBuilder.bind(keyedDlq).to(deadLetterExchange).with(keyed);
			return new Declarables(deadLetterExchange, ordersQueue, keyedQueue, ordersDlq, keyedDlq, ordersBinding,
					keyedBinding);
		}

		@Bean
		OrderListener orderListener(JdbcTemplate jdbc, @Value("${it.ledger}") String ledger) {
			jdbc.execute("CREATE TABLE " + ledger + " (order_id VARCHAR(128) NOT NULL, points INT NOT NULL)");
			return new OrderListener(jdbc, ledger);
		}

	}

	/** Counts the channels the broker closed (a channel error), not those the application closed. */
	static class ChannelErrors implements ChannelListener {

		private final AtomicInteger count = new AtomicInteger();

		@Override
		public void onCreate(com.rabbitmq.client.Channel channel, boolean transactional) {
		}

		@Override
		public void onShutDown(ShutdownSignalException signal) {
			if (!signal.isInitiatedByApplication()) {
				this.count.incrementAndGet();
			}
		}

		int count() {
			return this.count.get();
		}

	}

	/**
	 * Applies orders to a ledger; the order id's prefix chooses a failure: {@code poison-} always
	 * fails, {@code flaky-} fails twice, {@code fatal-} is not retryable, {@code crash-} loses its
	 * channel after the commit.
	 */
	static class OrderListener {

		private final JdbcTemplate jdbc;

		private final String ledger;

		private final Map<String, AtomicInteger> invocations = new ConcurrentHashMap<>();

		private final Map<String, Boolean> threads = new ConcurrentHashMap<>();

		private final AtomicInteger channelsClosed = new AtomicInteger();

		OrderListener(JdbcTemplate jdbc, String ledger) {
			this.jdbc = jdbc;
			this.ledger = ledger;
		}

		// Accessors, not fields: the test sees the bean through its @Idempotent proxy.

		public int invocations(String order) {
			AtomicInteger count = this.invocations.get(order);
			return (count != null) ? count.get() : 0;
		}

		public int channelsClosed() {
			return this.channelsClosed.get();
		}

		public java.util.Set<String> threads() {
			return this.threads.keySet();
		}

		@RabbitListener(id = "orders", queues = "${it.orders}", concurrency = "4")
		@Idempotent
		public void onOrder(Order order, Channel channel) {
			int attempt = this.invocations.computeIfAbsent(order.orderId(), (id) -> new AtomicInteger())
				.incrementAndGet();
			this.threads.put(Thread.currentThread().getName(), Boolean.TRUE);
			String id = order.orderId();
			if (id.startsWith("poison-")) {
				throw new IllegalStateException("poison order " + id);
			}
			if (id.startsWith("flaky-") && attempt <= 2) {
				throw new IllegalStateException("flaky order " + id + ", attempt " + attempt);
			}
			if (id.startsWith("fatal-")) {
				throw new NonRetryableIdempotencyException("fatal order " + id);
			}
			this.jdbc.update("INSERT INTO " + this.ledger + " (order_id, points) VALUES (?, ?)", id, order.points());
			if (id.startsWith("crash-")) {
				TransactionSynchronizationManager.registerSynchronization(new CloseChannelAfterCommit(channel));
			}
		}

		@RabbitListener(id = "keyed", queues = "${it.keyed}")
		@Idempotent(key = "#order.noSuchMethod()")
		public void onKeyedOrder(Order order) {
			this.jdbc.update("INSERT INTO " + this.ledger + " (order_id, points) VALUES (?, ?)", order.orderId(),
					order.points());
		}

		/** Runs before the interceptor's acknowledgement: the channel is gone when it acknowledges. */
		private final class CloseChannelAfterCommit implements TransactionSynchronization, Ordered {

			private final Channel channel;

			CloseChannelAfterCommit(Channel channel) {
				this.channel = channel;
			}

			@Override
			public int getOrder() {
				return Ordered.HIGHEST_PRECEDENCE;
			}

			@Override
			public void afterCommit() {
				try {
					Channel target = (this.channel instanceof ChannelProxy proxy) ? proxy.getTargetChannel()
							: this.channel;
					target.close();
					OrderListener.this.channelsClosed.incrementAndGet();
				}
				catch (Exception ex) {
					throw new IllegalStateException(ex);
				}
			}

		}

	}

}
