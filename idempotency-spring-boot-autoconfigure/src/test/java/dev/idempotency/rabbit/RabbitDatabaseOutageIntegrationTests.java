package dev.idempotency.rabbit;

import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import com.zaxxer.hikari.HikariDataSource;
import dev.idempotency.annotation.Idempotent;
import dev.idempotency.metrics.IdempotencyMeters;
import dev.idempotency.rabbit.RabbitTestSupport.Order;
import dev.idempotency.testsupport.TcpProxy;
import dev.idempotency.testsupport.TestDatabases;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.amqp.core.Binding;
import org.springframework.amqp.core.BindingBuilder;
import org.springframework.amqp.core.Declarables;
import org.springframework.amqp.core.DirectExchange;
import org.springframework.amqp.core.Message;
import org.springframework.amqp.core.Queue;
import org.springframework.amqp.core.QueueBuilder;
import org.springframework.amqp.rabbit.annotation.RabbitListener;
import org.springframework.amqp.rabbit.core.RabbitAdmin;
import org.springframework.amqp.rabbit.core.RabbitTemplate;
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
import org.springframework.jdbc.core.JdbcTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A PostgreSQL outage under an {@code @Idempotent} {@code @RabbitListener} with the JDBC store: the
 * application reaches PostgreSQL through a {@link TcpProxy} (Hikari connection timeout 1 s, driver
 * socket timeout 5 s), the test reads the ledger directly. About a third of the orders in, the proxy
 * is cut for 6 s; orders keep arriving meanwhile, a poison one among them.
 */
class RabbitDatabaseOutageIntegrationTests {

	private static final int ORDERS = 120;

	private static final Duration OUTAGE = Duration.ofSeconds(6);

	private final String run = RabbitTestSupport.uniqueName("rabbit-outage");

	private final String queue = this.run + ".orders";

	private final String ledger = "rabbit_outage_" + this.run.substring(this.run.length() - 8);

	private TcpProxy postgres;

	private HikariDataSource direct;

	private JdbcTemplate jdbc;

	private ConfigurableApplicationContext context;

	private RabbitTemplate rabbit;

	@BeforeEach
	void database() {
		this.direct = TestDatabases.postgres();
		this.jdbc = new JdbcTemplate(this.direct);
		this.jdbc.execute("CREATE TABLE " + this.ledger + " (order_id VARCHAR(64) NOT NULL, points INT NOT NULL)");
		URI uri = URI.create(this.direct.getJdbcUrl().substring("jdbc:".length()));
		this.postgres = TcpProxy.start(uri.getHost(), (uri.getPort() != -1) ? uri.getPort() : 5432);
	}

	@AfterEach
	void cleanUp() {
		if (this.context != null) {
			this.context.getBean(RabbitListenerEndpointRegistry.class).stop();
			RabbitAdmin admin = this.context.getBean(RabbitAdmin.class);
			admin.deleteQueue(this.queue);
			admin.deleteQueue(this.queue + ".dlq");
			admin.deleteExchange(this.run + ".dlx");
			this.context.close();
		}
		this.postgres.close();
		this.jdbc.execute("DROP TABLE IF EXISTS " + this.ledger);
		this.jdbc.update("DELETE FROM idempotency_record WHERE namespace LIKE ?", this.run + "%");
		this.direct.close();
	}

	/**
	 * Fails if an outage counts as the message's failure:
	 * {@link #withFailClosedOffADatabaseOutageDeadLettersValidMessages} shows what happens then.
	 */
	@Test
	void databaseOutagePausesTheListenerAndEveryOrderIsAppliedOnceOnlyThePoisonIsDeadLettered() throws Exception {
		start();
		MeterRegistry meters = this.context.getBean(MeterRegistry.class);
		OutageListener listener = this.context.getBean(OutageListener.class);
		sendOrders(0, ORDERS / 3 + 10);
		await().atMost(30, TimeUnit.SECONDS).until(() -> applied() >= ORDERS / 3);
		long cutAt = System.nanoTime();
		this.postgres.cut();
		sendOrders(ORDERS / 3 + 10, ORDERS);
		RabbitTestSupport.send(this.rabbit, this.queue, "m-poison", "poison-1", 1);
		sleepUntil(cutAt + OUTAGE.toNanos());
		double pausedDuringOutage = paused(meters);
		int deadLettersDuringOutage = deadLetters().size();
		int poisonAttemptsDuringOutage = listener.poisonAttempts();
		this.postgres.restore();
		await().atMost(60, TimeUnit.SECONDS).until(() -> applied() == ORDERS && deadLetters().size() >= 1);
		assertThat(deadLettersDuringOutage).as("dead letters during the outage").isZero();
		assertThat(pausedDuringOutage).as("paused during the outage").isEqualTo(1.0);
		List<Message> deadLetters = deadLetters();
		assertThat(deadLetters).as("dead letters").hasSize(1);
		assertThat(deadLetters.get(0).getMessageProperties().getMessageId()).isEqualTo("m-poison");
		assertThat(listener.poisonAttempts() - poisonAttemptsDuringOutage)
			.as("the poison's attempts after the outage: the outage counted none")
			.isEqualTo(3);
		assertThat(this.jdbc.queryForList(
				"SELECT order_id FROM " + this.ledger + " GROUP BY order_id HAVING COUNT(*) > 1", String.class))
			.as("orders applied twice")
			.isEmpty();
		assertThat(meters.get(IdempotencyMeters.LISTENER_PAUSES)
			.tag(IdempotencyMeters.LISTENER_TAG, "outage")
			.counter()
			.count()).as("pauses").isEqualTo(1.0);
		await().atMost(10, TimeUnit.SECONDS).until(() -> paused(meters) == 0);
	}

	@Test
	void withFailClosedOffADatabaseOutageDeadLettersValidMessages() throws Exception {
		start("idempotency.fail-closed.enabled=false");
		sendOrders(0, 30);
		await().atMost(30, TimeUnit.SECONDS).until(() -> applied() >= 10);
		long cutAt = System.nanoTime();
		this.postgres.cut();
		sendOrders(30, 60);
		sleepUntil(cutAt + OUTAGE.toNanos());
		this.postgres.restore();
		await().atMost(60, TimeUnit.SECONDS)
			.until(() -> RabbitTestSupport.ready(this.context.getBean(RabbitAdmin.class), this.queue) == 0);
		int deadLettered = deadLetters().size();
		System.out.printf("[rabbit fail-closed off] %d valid messages dead-lettered by a %d ms database outage; "
				+ "%d of 60 orders applied%n", deadLettered, OUTAGE.toMillis(), applied());
		assertThat(deadLettered).as("valid messages dead-lettered").isPositive();
	}

	private void start(String... extra) {
		URI uri = URI.create(this.direct.getJdbcUrl().substring("jdbc:".length()));
		String proxied = "jdbc:postgresql://127.0.0.1:" + this.postgres.port() + uri.getPath()
				+ "?socketTimeout=5&connectTimeout=2";
		List<String> properties = new ArrayList<>(List.of(RabbitTestSupport.BROKER_PROPERTIES));
		properties.addAll(List.of("spring.datasource.url=" + proxied,
				"spring.datasource.username=" + this.direct.getUsername(),
				"spring.datasource.hikari.connection-timeout=1000", "spring.datasource.hikari.validation-timeout=500",
				"spring.datasource.hikari.maximum-pool-size=4", "idempotency.jdbc.initialize-schema=always",
				"idempotency.jdbc.purge.enabled=false", "idempotency.fail-closed.probe-interval=500ms",
				"idempotency.rabbit.retry.initial-interval=100ms", "idempotency.rabbit.retry.max-attempts=3",
				"it.queue=" + this.queue, "it.dlx=" + this.run + ".dlx", "it.ledger=" + this.ledger));
		properties.addAll(List.of(extra));
		this.context = new SpringApplicationBuilder(OutageApplication.class).web(WebApplicationType.NONE)
			.properties(properties.toArray(String[]::new))
			.run();
		this.rabbit = this.context.getBean(RabbitTemplate.class);
	}

	/** Orders {@code from} to {@code to} (exclusive); every eighth is sent twice, as a producer retry. */
	private void sendOrders(int from, int to) {
		for (int i = from; i < to; i++) {
			RabbitTestSupport.send(this.rabbit, this.queue, "m-" + i, "o-" + i, i);
			if (i % 8 == 0) {
				RabbitTestSupport.send(this.rabbit, this.queue, "m-" + i, "o-" + i, i);
			}
		}
	}

	private int applied() {
		return this.jdbc.queryForObject("SELECT COUNT(*) FROM " + this.ledger, Integer.class);
	}

	private final List<Message> deadLetters = new ArrayList<>();

	private synchronized List<Message> deadLetters() {
		this.deadLetters.addAll(RabbitTestSupport.drain(this.rabbit, this.queue + ".dlq"));
		return List.copyOf(this.deadLetters);
	}

	private static double paused(MeterRegistry meters) {
		var gauge = meters.find(IdempotencyMeters.LISTENER_PAUSED)
			.tag(IdempotencyMeters.LISTENER_TAG, "outage")
			.gauge();
		return (gauge != null) ? gauge.value() : 0;
	}

	private static void sleepUntil(long nanos) throws InterruptedException {
		long left = nanos - System.nanoTime();
		if (left > 0) {
			TimeUnit.NANOSECONDS.sleep(left);
		}
	}

	@SpringBootConfiguration
	@EnableAutoConfiguration
	static class OutageApplication {

		@Bean
		SimpleMeterRegistry meterRegistry() {
			return new SimpleMeterRegistry();
		}

		@Bean
		MessageConverter jsonMessageConverter() {
			return new JacksonJsonMessageConverter();
		}

		@Bean
		Declarables queues(@Value("${it.queue}") String queue, @Value("${it.dlx}") String dlx) {
			DirectExchange deadLetterExchange = new DirectExchange(dlx, false, true);
			Queue orders = QueueBuilder.nonDurable(queue).deadLetterExchange(dlx).deadLetterRoutingKey(queue).build();
			Queue dlq = QueueBuilder.nonDurable(queue + ".dlq").build();
			Binding binding = BindingBuilder.bind(dlq).to(deadLetterExchange).with(queue);
			return new Declarables(deadLetterExchange, orders, dlq, binding);
		}

		@Bean
		OutageListener outageListener(JdbcTemplate jdbc, @Value("${it.ledger}") String ledger) {
			return new OutageListener(jdbc, ledger);
		}

	}

	static class OutageListener {

		private final JdbcTemplate jdbc;

		private final String ledger;

		private final AtomicInteger poisonAttempts = new AtomicInteger();

		OutageListener(JdbcTemplate jdbc, String ledger) {
			this.jdbc = jdbc;
			this.ledger = ledger;
		}

		public int poisonAttempts() {
			return this.poisonAttempts.get();
		}

		@RabbitListener(id = "outage", queues = "${it.queue}", concurrency = "2")
		@Idempotent(key = "#order.orderId()")
		public void onOrder(Order order) {
			if (order.orderId().startsWith("poison")) {
				this.poisonAttempts.incrementAndGet();
				throw new IllegalStateException("poison order " + order.orderId());
			}
			this.jdbc.update("INSERT INTO " + this.ledger + " (order_id, points) VALUES (?, ?)", order.orderId(),
					order.points());
		}

	}

}
