package dev.idempotency.redis.stream;

import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import com.zaxxer.hikari.HikariDataSource;
import dev.idempotency.annotation.Idempotent;
import dev.idempotency.metrics.IdempotencyMeters;
import dev.idempotency.redis.stream.StreamTestSupport.Order;
import dev.idempotency.redis.stream.metrics.RedisStreamMeters;
import dev.idempotency.testsupport.TcpProxy;
import dev.idempotency.testsupport.TestDatabases;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.data.redis.connection.stream.MapRecord;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.jdbc.core.JdbcTemplate;

import static dev.idempotency.redis.stream.StreamTestSupport.add;
import static dev.idempotency.redis.stream.StreamTestSupport.order;
import static dev.idempotency.redis.stream.StreamTestSupport.pending;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A PostgreSQL outage under a {@code @RedisStreamListener} with the JDBC store: the application
 * reaches PostgreSQL through a {@link TcpProxy} (Hikari connection timeout 1 s, driver socket
 * timeout 5 s), the test reads the ledger directly. About a third of the orders in, the proxy is
 * cut for 8 s; orders keep arriving on the stream meanwhile, a poison one among them.
 */
class RedisStreamDatabaseOutageIntegrationTests {

	private static final int ORDERS = 160;

	private static final Duration OUTAGE = Duration.ofSeconds(8);

	private final String run = UUID.randomUUID().toString().substring(0, 8);

	private final String stream = "rs-outage-" + this.run;

	private final String ledger = "rs_outage_ledger_" + this.run;

	private TcpProxy postgres;

	private HikariDataSource direct;

	private JdbcTemplate jdbc;

	private ConfigurableApplicationContext context;

	private StringRedisTemplate redis;

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
			this.context.getBean(RedisStreamListenerRegistry.class).stop();
			this.redis.delete(List.of(this.stream, this.stream + ".dlq"));
			this.context.close();
		}
		this.postgres.close();
		this.jdbc.execute("DROP TABLE IF EXISTS " + this.ledger);
		this.jdbc.update("DELETE FROM idempotency_record WHERE namespace LIKE ?", this.stream + "%");
		this.direct.close();
	}

	@Test
	void databaseOutagePausesTheListenerAndEveryOrderIsAppliedOnceOnlyThePoisonIsDeadLettered() throws Exception {
		// Two deliveries, as in the test with fail-closed off: the same outage dead-letters valid entries there.
		start("idempotency.redis.stream.max-deliveries=2");
		OutageListener listener = this.context.getBean(OutageListener.class);
		MeterRegistry meters = this.context.getBean(MeterRegistry.class);
		addOrders(0, ORDERS / 3 + 10);
		await().atMost(30, TimeUnit.SECONDS).until(() -> applied() >= ORDERS / 3);
		long cutAt = System.nanoTime();
		this.postgres.cut();
		double claimedBeforeOutage = claimed(meters);
		addOrders(ORDERS / 3 + 10, ORDERS);
		String poison = add(this.redis, this.stream, order("poison-1", 1));
		sleepUntil(cutAt + OUTAGE.toNanos());
		double pausedDuringOutage = circuitOpen(meters);
		int deadLettersDuringOutage = deadLetters().size();
		double claimedDuringOutage = claimed(meters) - claimedBeforeOutage;
		this.postgres.restore();
		long restoredAt = System.nanoTime();
		await().atMost(30, TimeUnit.SECONDS).until(() -> listener.lastProcessedAt() > restoredAt);
		System.out.printf("[fail-closed jdbc] outage %d ms; first entry processed %d ms after the restore%n",
				OUTAGE.toMillis(), Duration.ofNanos(listener.firstProcessedAfter(restoredAt) - restoredAt).toMillis());
		// Until the poison is dead-lettered and the rest applied, or (without fail-closed) until valid
		// entries were dead-lettered too.
		await().atMost(60, TimeUnit.SECONDS)
			.until(() -> pending(this.redis, this.stream, this.stream) == 0 && !deadLetters().isEmpty()
					&& (applied() == ORDERS || deadLetters().size() > 1));
		assertThat(deadLetters()).as("dead letters").hasSize(1);
		assertThat(deadLettersDuringOutage).as("dead letters during the outage").isZero();
		assertThat(claimedDuringOutage).as("entries claimed from the paused consumers during the outage").isZero();
		assertThat(pausedDuringOutage).as("paused during the outage").isEqualTo(1.0);
		assertThat(this.jdbc.queryForList("SELECT order_id FROM " + this.ledger + " GROUP BY order_id HAVING COUNT(*) > 1",
				String.class)).as("orders applied twice").isEmpty();
		assertThat(this.jdbc.queryForObject("SELECT COUNT(DISTINCT order_id) FROM " + this.ledger, Integer.class))
			.isEqualTo(ORDERS);
		MapRecord<String, Object, Object> deadLetter = deadLetters().get(0);
		assertThat(deadLetter.getValue()).containsEntry(RedisStreamListenerContainer.DLQ_ID_FIELD, poison)
			.containsEntry(RedisStreamListenerContainer.DLQ_DELIVERY_COUNT_FIELD, "2");
		assertThat(listener.poisonAttempts()).as("the poison's attempts: the outage counted none").isEqualTo(2);
		assertThat(meters.get(IdempotencyMeters.LISTENER_PAUSES).tag(IdempotencyMeters.LISTENER_TAG, circuit())
			.counter()
			.count()).as("pauses").isEqualTo(1.0);
		assertThat(circuitOpen(meters)).as("paused gauge after the recovery").isZero();
	}

	@Test
	void withFailClosedOffADatabaseOutageDeadLettersValidEntries() throws Exception {
		start("idempotency.fail-closed.enabled=false", "idempotency.redis.stream.max-deliveries=2");
		addOrders(0, 30);
		await().atMost(30, TimeUnit.SECONDS).until(() -> applied() >= 10);
		long cutAt = System.nanoTime();
		this.postgres.cut();
		addOrders(30, 60);
		sleepUntil(cutAt + OUTAGE.toNanos());
		this.postgres.restore();
		await().atMost(60, TimeUnit.SECONDS).until(() -> pending(this.redis, this.stream, this.stream) == 0);
		int deadLettered = deadLetters().size();
		System.out.printf("[fail-closed off] %d valid entries dead-lettered by an %d ms database outage; %d of 60 "
				+ "orders applied%n", deadLettered, OUTAGE.toMillis(), applied());
		assertThat(deadLettered).as("valid entries dead-lettered").isPositive();
		assertThat(applied()).isLessThan(60);
	}

	private void start(String... extra) {
		URI uri = URI.create(this.direct.getJdbcUrl().substring("jdbc:".length()));
		String proxied = "jdbc:postgresql://127.0.0.1:" + this.postgres.port() + uri.getPath()
				+ "?socketTimeout=5&connectTimeout=2";
		List<String> properties = new ArrayList<>(List.of("spring.datasource.url=" + proxied,
				"spring.datasource.username=" + this.direct.getUsername(), "spring.datasource.hikari.connection-timeout=1000",
				"spring.datasource.hikari.validation-timeout=500", "spring.datasource.hikari.maximum-pool-size=6",
				"spring.data.redis.host=127.0.0.1", "spring.data.redis.port=6379", "spring.data.redis.timeout=5s",
				"idempotency.jdbc.initialize-schema=always", "idempotency.jdbc.purge.enabled=false",
				"idempotency.fail-closed.probe-interval=500ms", "idempotency.redis.stream.batch-size=10",
				"idempotency.redis.stream.poll-timeout=500ms", "idempotency.redis.stream.min-idle=2s",
				"idempotency.redis.stream.claim-interval=500ms", "idempotency.redis.stream.recovery-back-off=200ms",
				"it.stream=" + this.stream, "it.ledger=" + this.ledger));
		properties.addAll(List.of(extra));
		this.context = new SpringApplicationBuilder(OutageApplication.class).web(WebApplicationType.NONE)
			.properties(properties.toArray(String[]::new))
			.run();
		this.redis = this.context.getBean(StringRedisTemplate.class);
		RedisStreamListenerContainer container = this.context.getBean(RedisStreamListenerRegistry.class)
			.getListenerContainer("outage");
		await().atMost(10, TimeUnit.SECONDS).until(() -> container.getActiveSubscriptions() == 2);
	}

	/** Orders {@code from} to {@code to} (exclusive); every eighth is sent twice, as a producer retry. */
	private void addOrders(int from, int to) {
		for (int i = from; i < to; i++) {
			add(this.redis, this.stream, order("o-" + i, i));
			if (i % 8 == 0) {
				add(this.redis, this.stream, order("o-" + i, i));
			}
		}
	}

	private int applied() {
		return this.jdbc.queryForObject("SELECT COUNT(*) FROM " + this.ledger, Integer.class);
	}

	private List<MapRecord<String, Object, Object>> deadLetters() {
		return StreamTestSupport.entries(this.redis, this.stream + ".dlq");
	}

	private double claimed(MeterRegistry meters) {
		return StreamTestSupport.counter(meters, RedisStreamMeters.STREAM_RECLAIMED, this.stream);
	}

	private String circuit() {
		return this.stream + "/" + this.stream;
	}

	private double circuitOpen(MeterRegistry meters) {
		var gauge = meters.find(IdempotencyMeters.LISTENER_PAUSED).tag(IdempotencyMeters.LISTENER_TAG, circuit()).gauge();
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
		OutageListener outageListener(JdbcTemplate jdbc, @Value("${it.ledger}") String ledger) {
			return new OutageListener(jdbc, ledger);
		}

	}

	static class OutageListener {

		private final JdbcTemplate jdbc;

		private final String ledger;

		private final List<Long> processedAt = new ArrayList<>();

		private int poisonAttempts;

		OutageListener(JdbcTemplate jdbc, String ledger) {
			this.jdbc = jdbc;
			this.ledger = ledger;
		}

		// Accessors, not fields: the test sees the bean through its @Idempotent proxy.

		public synchronized long lastProcessedAt() {
			return this.processedAt.isEmpty() ? 0 : this.processedAt.get(this.processedAt.size() - 1);
		}

		public synchronized long firstProcessedAfter(long nanos) {
			return this.processedAt.stream().filter((at) -> at > nanos).findFirst().orElse(0L);
		}

		public synchronized int poisonAttempts() {
			return this.poisonAttempts;
		}

		@RedisStreamListener(id = "outage", stream = "${it.stream}", group = "${it.stream}", concurrency = "2")
		@Idempotent(key = "#order.orderId()")
		public void onOrder(Order order) {
			if (order.orderId().startsWith("poison")) {
				synchronized (this) {
					this.poisonAttempts++;
				}
				throw new IllegalStateException("poison order " + order.orderId());
			}
			this.jdbc.update("INSERT INTO " + this.ledger + " (order_id, points) VALUES (?, ?)", order.orderId(),
					order.points());
			synchronized (this) {
				this.processedAt.add(System.nanoTime());
			}
		}

	}

}
