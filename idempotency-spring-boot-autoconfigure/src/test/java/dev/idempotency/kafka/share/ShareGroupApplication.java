package dev.idempotency.kafka.share;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

import dev.idempotency.annotation.Idempotent;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ShareConsumer;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.Serializer;
import org.apache.kafka.common.serialization.StringDeserializer;

import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.kafka.annotation.KafkaListener;
import org.springframework.kafka.config.ShareKafkaListenerContainerFactory;
import org.springframework.kafka.core.DefaultShareConsumerFactory;
import org.springframework.kafka.support.serializer.ErrorHandlingDeserializer;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * Share-group listeners on the in-process broker: orders credited once each (with poison, bad
 * input and producer duplicates among them), a method slower than the acquisition lock, and a
 * consumer closed after its commit and before its acknowledgement.
 */
@SpringBootConfiguration
@EnableAutoConfiguration
class ShareGroupApplication {

	static final String ORDERS = "share-orders";

	static final String SLOW = "share-slow";

	static final String SLOW_WITHOUT_RENEWAL = "share-slow-unrenewed";

	static final String CRASH = "share-crash";

	@Bean
	ShareKafkaListenerContainerFactory<String, String> shareFactory(
			@Value("${spring.kafka.bootstrap-servers}") String servers) {
		Map<String, Object> config = new HashMap<>();
		config.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, servers);
		config.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class);
		config.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ErrorHandlingDeserializer.class);
		config.put(ErrorHandlingDeserializer.VALUE_DESERIALIZER_CLASS, RefusingDeserializer.class);
		return new ShareKafkaListenerContainerFactory<>(new DefaultShareConsumerFactory<>(config));
	}

	@Bean
	Ledger ledger(JdbcTemplate jdbc, @Value("${it.run}") String run) {
		return new Ledger(jdbc, run);
	}

	@Bean
	OrderListener orderListener(Ledger ledger) {
		return new OrderListener(ledger);
	}

	@Bean
	SimpleMeterRegistry meterRegistry() {
		return new SimpleMeterRegistry();
	}

	@Bean
	Settlements settlements() {
		return new Settlements();
	}

	/**
	 * What the adapter told its listeners: settlements by group, type and reason; pauses.
	 */
	static class Settlements implements ShareConsumerListener {

		final Map<String, AtomicInteger> counts = new ConcurrentHashMap<>();

		final AtomicInteger pauses = new AtomicInteger();

		final AtomicInteger resumes = new AtomicInteger();

		@Override
		public void onShareAcknowledged(String group, String type, String reason) {
			this.counts.computeIfAbsent(group + "/" + type + "/" + reason, (key) -> new AtomicInteger())
				.incrementAndGet();
		}

		@Override
		public void onListenerPaused(String listener, Throwable cause) {
			this.pauses.incrementAndGet();
		}

		@Override
		public void onListenerResumed(String listener, Duration paused) {
			this.resumes.incrementAndGet();
		}

		int count(String group, String type, String reason) {
			AtomicInteger count = this.counts.get(group + "/" + type + "/" + reason);
			return (count != null) ? count.get() : 0;
		}

		int count(String group, String type) {
			return this.counts.entrySet()
				.stream()
				.filter((entry) -> entry.getKey().startsWith(group + "/" + type + "/"))
				.mapToInt((entry) -> entry.getValue().get())
				.sum();
		}

	}

	/**
	 * The dead-letter producer's value serializer: an unreadable record is dead-lettered with its
	 * original bytes, a readable one with its string.
	 */
	public static class BytesOrStringSerializer implements Serializer<Object> {

		@Override
		public byte[] serialize(String topic, Object data) {
			return (data instanceof byte[] bytes) ? bytes
					: (data != null) ? data.toString().getBytes(StandardCharsets.UTF_8) : null;
		}

	}

	/**
	 * Fails on records whose value starts with {@code garbage}: the unreadable payloads.
	 */
	public static class RefusingDeserializer implements Deserializer<String> {

		@Override
		public String deserialize(String topic, byte[] data) {
			String value = new String(data, StandardCharsets.UTF_8);
			if (value.startsWith("garbage")) {
				throw new IllegalArgumentException("Unreadable: " + value);
			}
			return value;
		}

	}

	/**
	 * The business table: one row per credit, no unique key, so that a credit applied twice shows.
	 */
	static class Ledger {

		final JdbcTemplate jdbc;

		final String table;

		/** Deliveries each order reached the method with, by order. */
		final Map<String, Set<Integer>> deliveries = new ConcurrentHashMap<>();

		/** Times the method body ran, by order. */
		final Map<String, AtomicInteger> runs = new ConcurrentHashMap<>();

		Ledger(JdbcTemplate jdbc, String run) {
			this.jdbc = jdbc;
			this.table = "share_it_ledger_" + run;
			jdbc.execute("CREATE TABLE " + this.table + " (order_id VARCHAR(100) NOT NULL, amount INT NOT NULL)");
		}

		void credit(String order, int amount, ConsumerRecord<?, ?> record) {
			this.runs.computeIfAbsent(order, (key) -> new AtomicInteger()).incrementAndGet();
			this.deliveries.computeIfAbsent(order, (key) -> ConcurrentHashMap.newKeySet())
				.add(ShareFailurePolicy.deliveryCount(record));
			this.jdbc.update("INSERT INTO " + this.table + " (order_id, amount) VALUES (?, ?)", order, amount);
		}

		int rows(String order) {
			Integer count = this.jdbc.queryForObject("SELECT COUNT(*) FROM " + this.table + " WHERE order_id = ?",
					Integer.class, order);
			return (count != null) ? count : 0;
		}

		int rowsLike(String prefix) {
			Integer count = this.jdbc.queryForObject(
					"SELECT COUNT(*) FROM " + this.table + " WHERE order_id LIKE ?", Integer.class, prefix + "%");
			return (count != null) ? count : 0;
		}

		int ordersAppliedMoreThanOnce(String prefix) {
			return this.jdbc
				.queryForList("SELECT order_id FROM " + this.table + " WHERE order_id LIKE ? GROUP BY order_id"
						+ " HAVING COUNT(*) > 1", String.class, prefix + "%")
				.size();
		}

		int runs(String order) {
			AtomicInteger runs = this.runs.get(order);
			return (runs != null) ? runs.get() : 0;
		}

		void drop() {
			this.jdbc.execute("DROP TABLE " + this.table);
		}

	}

	/**
	 * The listeners. Values are {@code <order>:<amount>}; an order starting with {@code poison}
	 * always fails, {@code nokey} has a blank key.
	 */
	static class OrderListener {

		private final Ledger ledger;

		/** Orders whose consumer is closed after their first commit, before the acknowledgement. */
		private final Set<String> crashAfterCommit = ConcurrentHashMap.newKeySet();

		OrderListener(Ledger ledger) {
			this.ledger = ledger;
		}

		void crashAfterCommit(String order) {
			this.crashAfterCommit.add(order);
		}

		@KafkaListener(id = "share-orders", topics = ORDERS, groupId = "share-orders-${it.run}",
				containerFactory = "shareFactory", concurrency = "4", autoStartup = "${it.orders.enabled:true}")
		@Idempotent(key = "#p0.startsWith('nokey') ? '' : #p0.split(':')[0]")
		void credit(String value, ConsumerRecord<String, String> record) {
			String order = value.split(":")[0];
			if (order.startsWith("poison")) {
				this.ledger.deliveries.computeIfAbsent(order, (key) -> ConcurrentHashMap.newKeySet())
					.add(ShareFailurePolicy.deliveryCount(record));
				throw new IllegalStateException("Poison order " + order);
			}
			this.ledger.credit(order, Integer.parseInt(value.split(":")[1]), record);
		}

		@KafkaListener(id = "share-slow", topics = "${it.slow-topic:" + SLOW + "}", groupId = "share-slow-${it.run}",
				containerFactory = "shareFactory", concurrency = "2", autoStartup = "${it.slow.enabled:true}")
		@Idempotent(key = "#p0")
		void slow(String value, ConsumerRecord<String, String> record) throws InterruptedException {
			this.ledger.credit(value, 1, record);
			Thread.sleep(SLOW_METHOD.toMillis());
		}

		@KafkaListener(id = "share-crash", topics = CRASH, groupId = "share-crash-${it.run}",
				containerFactory = "shareFactory", concurrency = "2", autoStartup = "${it.crash.enabled:true}")
		@Idempotent(key = "#p0")
		void crash(String value, ConsumerRecord<String, String> record, ShareConsumer<?, ?> consumer) {
			this.ledger.credit(value, 1, record);
			if (this.crashAfterCommit.remove(value)) {
				TransactionSynchronizationManager.registerSynchronization(new TransactionSynchronization() {

					@Override
					public void afterCommit() {
						// The consumer goes away after the commit, before the container accepts the record
						consumer.close(Duration.ZERO);
					}

				});
			}
		}

	}

	/** How long the slow listener works: longer than the 2 s acquisition lock of the test broker. */
	static final Duration SLOW_METHOD = Duration.ofSeconds(5);

}
