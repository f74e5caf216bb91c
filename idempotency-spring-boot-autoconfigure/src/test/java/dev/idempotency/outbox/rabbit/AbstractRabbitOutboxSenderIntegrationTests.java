package dev.idempotency.outbox.rabbit;

import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import com.zaxxer.hikari.HikariDataSource;
import dev.idempotency.core.MessageFields;
import dev.idempotency.outbox.Outbox;
import dev.idempotency.outbox.OutboxListener;
import dev.idempotency.outbox.OutboxRelay;
import dev.idempotency.outbox.OutboxSender;
import dev.idempotency.outbox.jdbc.JdbcOutbox;
import dev.idempotency.outbox.jdbc.JdbcOutboxRepository;
import dev.idempotency.outbox.jdbc.OutboxDialect;
import dev.idempotency.support.DefaultFailureClassifier;
import dev.idempotency.testsupport.TcpProxy;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.amqp.core.BindingBuilder;
import org.springframework.amqp.core.DirectExchange;
import org.springframework.amqp.core.Message;
import org.springframework.amqp.core.Queue;
import org.springframework.amqp.rabbit.connection.CachingConnectionFactory;
import org.springframework.amqp.rabbit.core.RabbitAdmin;
import org.springframework.amqp.rabbit.core.RabbitTemplate;
import org.springframework.core.io.ClassPathResource;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.jdbc.datasource.init.ResourceDatabasePopulator;
import org.springframework.transaction.support.TransactionTemplate;
import org.springframework.util.backoff.ExponentialBackOff;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The outbox relay with the RabbitMQ sender, on one real database and the local RabbitMQ
 * (127.0.0.1:5672, guest/guest), each test on exchanges and queues of its own (deleted after):
 * rows reach the queue in order with their headers, an unroutable message is the message's failure,
 * a missing exchange keeps its rows pending without holding back the others, and a broker outage in
 * the middle of a backlog keeps the rows pending until the broker is back, losing none.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class AbstractRabbitOutboxSenderIntegrationTests {

	private static final String TRACEPARENT = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";

	private HikariDataSource dataSource;

	private JdbcTemplate jdbc;

	private TransactionTemplate transactions;

	private JdbcOutboxRepository repository;

	private Outbox outbox;

	private CachingConnectionFactory connectionFactory;

	private RabbitAdmin admin;

	private RabbitTemplate reader;

	private final List<Runnable> cleanUps = new ArrayList<>();

	private final AtomicInteger sendFailures = new AtomicInteger();

	private final Map<String, AtomicInteger> sendFailuresByDestination = new ConcurrentHashMap<>();

	private final AtomicInteger dead = new AtomicInteger();

	protected abstract HikariDataSource createDataSource();

	protected abstract String platform();

	@BeforeAll
	void start() {
		this.dataSource = createDataSource();
		new ResourceDatabasePopulator(new ClassPathResource("dev/idempotency/outbox/schema-drop-" + platform() + ".sql"),
				new ClassPathResource("dev/idempotency/outbox/schema-" + platform() + ".sql"))
			.execute(this.dataSource);
		this.jdbc = new JdbcTemplate(this.dataSource);
		this.transactions = new TransactionTemplate(new DataSourceTransactionManager(this.dataSource));
		this.repository = new JdbcOutboxRepository(this.dataSource, OutboxDialect.detect(this.dataSource),
				"idempotency_outbox", JsonMapper.shared(), Clock.systemUTC());
		this.outbox = new JdbcOutbox(this.repository, JsonMapper.shared(), () -> {
		}, () -> TRACEPARENT);
		this.connectionFactory = confirmingFactory(5672);
		this.admin = new RabbitAdmin(this.connectionFactory);
		this.reader = new RabbitTemplate(this.connectionFactory);
	}

	@AfterAll
	void stop() {
		this.connectionFactory.destroy();
		this.dataSource.close();
	}

	@BeforeEach
	void emptyTable() {
		this.jdbc.update("DELETE FROM idempotency_outbox");
		this.sendFailures.set(0);
		this.sendFailuresByDestination.clear();
		this.dead.set(0);
	}

	@AfterEach
	void cleanUp() {
		for (int i = this.cleanUps.size() - 1; i >= 0; i--) {
			this.cleanUps.get(i).run();
		}
		this.cleanUps.clear();
	}

	@Test
	void rowsReachTheQueueInOrderWithTheirHeaders() {
		String exchange = exchange();
		String queue = queue(exchange, "acct-1");
		RabbitOutboxSender sender = sender(this.connectionFactory);
		start(relay(50, Duration.ofSeconds(10), 3, sender));
		List<String> published = new ArrayList<>();
		for (int t = 0; t < 3; t++) {
			int from = t * 100;
			published.addAll(this.transactions.execute((status) -> {
				List<String> ids = new ArrayList<>();
				for (int i = from; i < from + 100; i++) {
					ids.add(this.outbox.publish("rabbit:" + exchange, "acct-1", Map.of("n", i),
							Map.of("tenant", "t-" + i)));
				}
				return ids;
			}));
		}
		await().atMost(30, TimeUnit.SECONDS).until(() -> rows("SENT") == 300);
		List<Message> received = read(queue, 300);
		assertThat(received).extracting((message) -> message.getMessageProperties().getMessageId())
			.as("message ids in the queue's order")
			.containsExactlyElementsOf(published);
		for (int i = 0; i < received.size(); i++) {
			Message message = received.get(i);
			assertThat(new String(message.getBody(), StandardCharsets.UTF_8)).isEqualTo("{\"n\":" + i + "}");
			assertThat((String) message.getMessageProperties().getHeader(MessageFields.MESSAGE_ID))
				.isEqualTo(published.get(i));
			assertThat((String) message.getMessageProperties().getHeader("tenant")).isEqualTo("t-" + i);
			assertThat((String) message.getMessageProperties().getHeader(MessageFields.TRACEPARENT))
				.isEqualTo(TRACEPARENT);
			assertThat(message.getMessageProperties().getContentType()).isEqualTo("application/json");
			assertThat(message.getMessageProperties().getReceivedRoutingKey()).isEqualTo("acct-1");
		}
	}

	@Test
	void aTargetCanNameTheRoutingKeyOrTheDefaultExchange() {
		String exchange = exchange();
		String bound = queue(exchange, "created");
		String direct = queue(null, null);
		start(relay(10, Duration.ofSeconds(10), 3, sender(this.connectionFactory)));
		String viaExchange = this.transactions
			.execute((status) -> this.outbox.publish("rabbit:" + exchange + "/created", "acct-2", "one"));
		String viaDefault = this.transactions
			.execute((status) -> this.outbox.publish("rabbit:/" + direct, null, "two"));
		await().atMost(30, TimeUnit.SECONDS).until(() -> rows("SENT") == 2);
		assertThat(read(bound, 1)).singleElement()
			.satisfies((message) -> assertThat(message.getMessageProperties().getMessageId()).isEqualTo(viaExchange));
		assertThat(read(direct, 1)).singleElement()
			.satisfies((message) -> assertThat(message.getMessageProperties().getMessageId()).isEqualTo(viaDefault));
	}

	@Test
	void anUnroutableMessageIsTheMessagesFailureAndTheOthersAreSent() {
		String exchange = exchange();
		String queue = queue(exchange, "routed");
		start(relay(20, Duration.ofSeconds(10), 2, sender(this.connectionFactory)));
		List<String> routed = new ArrayList<>();
		String unroutable = this.transactions.execute((status) -> {
			for (int i = 0; i < 5; i++) {
				routed.add(this.outbox.publish("rabbit:" + exchange + "/routed", null, "r-" + i));
			}
			return this.outbox.publish("rabbit:" + exchange + "/nowhere", null, "lost");
		});
		await().atMost(30, TimeUnit.SECONDS).until(() -> rows("DEAD") == 1 && rows("SENT") == 5);
		Map<String, Object> row = this.jdbc.queryForMap(
				"SELECT attempts, last_error FROM idempotency_outbox WHERE message_id = ?", unroutable);
		assertThat(((Number) row.get("attempts")).intValue()).as("attempts").isEqualTo(2);
		assertThat((String) row.get("last_error")).contains("AmqpMessageReturnedException").contains("NO_ROUTE");
		assertThat(this.dead).hasValue(1);
		assertThat(read(queue, 5)).extracting((message) -> message.getMessageProperties().getMessageId())
			.containsExactlyElementsOf(routed);
	}

	@Test
	void aMissingExchangeKeepsItsRowPendingWithoutHoldingBackTheOthers() {
		String exchange = exchange();
		String queue = queue(exchange, "k");
		String missing = "outbox-missing-" + UUID.randomUUID();
		start(relay(20, Duration.ofSeconds(10), 2, sender(this.connectionFactory)));
		String waiting = this.transactions.execute((status) -> {
			String id = this.outbox.publish("rabbit:" + missing + "/k", null, "early");
			for (int i = 0; i < 5; i++) {
				this.outbox.publish("rabbit:" + exchange + "/k", null, "r-" + i);
			}
			return id;
		});
		// Several rounds failed for the missing exchange: with 2 attempts, a counted failure would have killed it.
		await().atMost(30, TimeUnit.SECONDS).until(() -> rows("SENT") == 5 && this.sendFailures.get() >= 4);
		assertThat(read(queue, 5)).hasSize(5);
		Map<String, Object> row = this.jdbc
			.queryForMap("SELECT status, attempts, last_error FROM idempotency_outbox WHERE message_id = ?", waiting);
		assertThat(row.get("status")).isEqualTo("PENDING");
		assertThat(((Number) row.get("attempts")).intValue()).isZero();
		assertThat((String) row.get("last_error")).contains("NOT_FOUND");
		assertThat(this.dead).hasValue(0);
		assertThat(this.sendFailuresByDestination).as("failed sends by destination")
			.containsOnlyKeys("rabbit:" + missing + "/k");

		String late = queue(null, null);
		declareExchange(missing);
		this.admin.declareBinding(BindingBuilder.bind(new Queue(late)).to(new DirectExchange(missing)).with("k"));
		await().atMost(30, TimeUnit.SECONDS).until(() -> rows("SENT") == 6);
		assertThat(read(late, 1)).singleElement()
			.satisfies((message) -> assertThat(message.getMessageProperties().getMessageId()).isEqualTo(waiting));
	}

	/**
	 * A queue that refuses messages beyond its length ({@code x-overflow=reject-publish}) makes the
	 * broker answer them with a negative confirm: their rows stay pending, without counting an
	 * attempt, and go out once the queue has room again. A row marked sent without its confirm would
	 * be lost here.
	 */
	@Test
	void aMessageTheBrokerDoesNotConfirmStaysPendingUntilItIsConfirmed() {
		String exchange = exchange();
		String queue = "outbox-q-" + UUID.randomUUID();
		Queue bounded = new Queue(queue, false, false, false,
				Map.of("x-max-length", 5, "x-overflow", "reject-publish"));
		this.admin.declareQueue(bounded);
		this.cleanUps.add(() -> this.admin.deleteQueue(queue));
		this.admin.declareBinding(BindingBuilder.bind(bounded).to(new DirectExchange(exchange)).with("k"));
		start(relay(20, Duration.ofSeconds(10), 2, sender(this.connectionFactory)));
		List<String> published = this.transactions.execute((status) -> {
			List<String> ids = new ArrayList<>();
			for (int i = 0; i < 8; i++) {
				ids.add(this.outbox.publish("rabbit:" + exchange + "/k", null, "m-" + i));
			}
			return ids;
		});
		await().atMost(30, TimeUnit.SECONDS).until(() -> rows("SENT") == 5 && this.sendFailures.get() >= 6);
		assertThat(rows("PENDING")).as("rows the broker refused").isEqualTo(3);
		assertThat(this.jdbc.queryForObject("SELECT MAX(attempts) FROM idempotency_outbox", Integer.class))
			.as("attempts counted for refused messages")
			.isZero();
		assertThat(this.jdbc.queryForList("SELECT last_error FROM idempotency_outbox WHERE status = 'PENDING'",
				String.class))
			.allSatisfy((error) -> assertThat(error).contains("AmqpNackReceivedException"));
		List<String> received = new ArrayList<>();
		read(queue, 5).forEach((message) -> received.add(message.getMessageProperties().getMessageId()));
		await().atMost(30, TimeUnit.SECONDS).until(() -> rows("SENT") == 8);
		read(queue, 3).forEach((message) -> received.add(message.getMessageProperties().getMessageId()));
		assertThat(received).containsExactlyInAnyOrderElementsOf(published);
		assertThat(this.dead).hasValue(0);
	}

	/**
	 * The connection is reset in the middle of a backlog, with batches waiting for their confirms, and
	 * refused for several rounds: no row is marked sent without its confirm (every message id reaches the
	 * queue), none counts an attempt or dies, and the rows go out once the broker is reachable again.
	 * A message whose confirm the reset took may arrive twice (at least once; consumers deduplicate).
	 */
	@Test
	void aBrokerOutageKeepsTheRowsPendingAndTheyAreSentOnceItIsBack() throws Exception {
		int messages = 3000;
		String exchange = exchange();
		String queue = queue(exchange, "k");
		try (TcpProxy proxy = TcpProxy.start("127.0.0.1", 5672)) {
			CachingConnectionFactory proxied = confirmingFactory(proxy.port());
			try {
				OutboxRelay relay = relay(50, Duration.ofSeconds(2), 3, sender(proxied));
				List<String> published = new ArrayList<>();
				for (int t = 0; t < messages / 500; t++) {
					published.addAll(this.transactions.execute((status) -> {
						List<String> ids = new ArrayList<>();
						for (int i = 0; i < 500; i++) {
							ids.add(this.outbox.publish("rabbit:" + exchange + "/k", null, "m"));
						}
						return ids;
					}));
				}
				start(relay);
				await().atMost(30, TimeUnit.SECONDS).pollInterval(Duration.ofMillis(5)).until(() -> rows("SENT") > 0);
				proxy.cut();
				int sentAtCut = rows("SENT");
				// Rounds enough to spend every attempt of the rows still pending, had they counted.
				await().atMost(60, TimeUnit.SECONDS).until(() -> this.sendFailures.get() >= 3 * 50 * 3);
				assertThat(rows("SENT")).as("rows sent while the broker was cut off").isLessThan(messages);
				assertThat(this.jdbc.queryForObject("SELECT MAX(attempts) FROM idempotency_outbox", Integer.class))
					.as("attempts counted for the outage")
					.isZero();
				assertThat(rows("DEAD")).isZero();

				proxy.restore();
				await().atMost(60, TimeUnit.SECONDS).until(() -> rows("SENT") == messages);
				assertThat(sentAtCut).as("rows sent before the cut").isLessThan(messages);
				List<Message> received = read(queue, messages);
				HashSet<String> ids = new HashSet<>();
				received.forEach((message) -> ids.add(message.getMessageProperties().getMessageId()));
				assertThat(ids).as("distinct message ids in the queue").containsExactlyInAnyOrderElementsOf(published);
				// Only the batches on their way at the reset can have been sent twice.
				assertThat(received.size() - ids.size()).as("second copies").isLessThanOrEqualTo(3 * 50);
				assertThat(this.dead).hasValue(0);
			}
			finally {
				proxied.destroy();
			}
		}
	}

	private RabbitOutboxSender sender(CachingConnectionFactory factory) {
		RabbitOutboxSender sender = new RabbitOutboxSender(factory, RabbitOutboxSender.DEFAULT_CONTENT_TYPE);
		this.cleanUps.add(sender::close);
		return sender;
	}

	private OutboxRelay relay(int batchSize, Duration sendTimeout, int maxAttempts, OutboxSender sender) {
		ExponentialBackOff backOff = new ExponentialBackOff(50, 2.0);
		backOff.setMaxInterval(400);
		backOff.setJitter(10);
		OutboxRelay.Options options = new OutboxRelay.Options(Duration.ofMillis(20), batchSize, Duration.ofSeconds(30),
				sendTimeout, maxAttempts, backOff, false, 3);
		OutboxListener listener = new OutboxListener() {

			@Override
			public void onOutboxSendFailed(String destination, Throwable cause) {
				AbstractRabbitOutboxSenderIntegrationTests.this.sendFailures.incrementAndGet();
				AbstractRabbitOutboxSenderIntegrationTests.this.sendFailuresByDestination
					.computeIfAbsent(destination, (key) -> new AtomicInteger())
					.incrementAndGet();
			}

			@Override
			public void onOutboxDead(String destination, String messageId, Throwable cause) {
				AbstractRabbitOutboxSenderIntegrationTests.this.dead.incrementAndGet();
			}

		};
		return new OutboxRelay(this.repository, () -> List.of(sender), options, Clock.systemUTC(),
				() -> List.of(listener), new DefaultFailureClassifier());
	}

	private void start(OutboxRelay relay) {
		this.cleanUps.add(relay::stop);
		relay.start();
	}

	private String exchange() {
		String name = "outbox-x-" + UUID.randomUUID();
		declareExchange(name);
		return name;
	}

	private void declareExchange(String name) {
		this.admin.declareExchange(new DirectExchange(name, false, false));
		this.cleanUps.add(() -> this.admin.deleteExchange(name));
	}

	/** A queue bound to the exchange with the routing key, or bound to nothing but the default exchange. */
	private String queue(String exchange, String routingKey) {
		String name = "outbox-q-" + UUID.randomUUID();
		Queue queue = new Queue(name, false, false, false);
		this.admin.declareQueue(queue);
		this.cleanUps.add(() -> this.admin.deleteQueue(name));
		if (exchange != null) {
			this.admin.declareBinding(BindingBuilder.bind(queue).to(new DirectExchange(exchange)).with(routingKey));
		}
		return name;
	}

	/** Reads the queue until {@code expected} messages came and then until it stays empty briefly. */
	private List<Message> read(String queue, int expected) {
		List<Message> messages = new ArrayList<>();
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
		while (System.nanoTime() < deadline) {
			Message message = this.reader.receive(queue, (messages.size() < expected) ? 1000 : 200);
			if (message == null && messages.size() >= expected) {
				break;
			}
			if (message != null) {
				messages.add(message);
			}
		}
		return messages;
	}

	private int rows(String status) {
		return this.jdbc.queryForObject("SELECT COUNT(*) FROM idempotency_outbox WHERE status = ?", Integer.class,
				status);
	}

	private static CachingConnectionFactory confirmingFactory(int port) {
		CachingConnectionFactory factory = RabbitOutboxSenderTests.confirmingFactory(true);
		factory.setPort(port);
		factory.setConnectionTimeout(2000);
		return factory;
	}

}
