package dev.idempotency.fault;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import com.zaxxer.hikari.HikariDataSource;
import org.apache.kafka.clients.admin.AdminClient;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

import org.springframework.core.io.ClassPathResource;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.init.ResourceDatabasePopulator;
import org.springframework.kafka.test.EmbeddedKafkaKraftBroker;

/**
 * What the child consumers share, seen from the parent: an in-process KRaft broker (tuned so that a
 * killed member leaves its group within seconds), the PostgreSQL database (the starter's dedup table
 * and the points tables), a producer, and the admin queries the assertions need.
 * <p>
 * The database is {@code idempotency.test.postgres.url} (default
 * {@code jdbc:postgresql://127.0.0.1:5432/test}, as in the other integration tests) and
 * {@code idempotency.test.postgres.username} (default {@code postgres}).
 */
final class FaultCluster implements AutoCloseable {

	static final String DATABASE_URL = System.getProperty("idempotency.test.postgres.url",
			"jdbc:postgresql://127.0.0.1:5432/test");

	static final String DATABASE_USER = System.getProperty("idempotency.test.postgres.username", "postgres");

	private final EmbeddedKafkaKraftBroker broker;

	private final AdminClient admin;

	private final KafkaProducer<String, byte[]> producer;

	private final HikariDataSource dataSource;

	private final JdbcTemplate jdbc;

	private final String runId;

	private final Path directory;

	FaultCluster(String name) {
		this.runId = name + "-" + UUID.randomUUID().toString().substring(0, 8);
		this.directory = Path.of("target", "fault-injection", this.runId).toAbsolutePath();
		this.broker = new EmbeddedKafkaKraftBroker(1, 4);
		this.broker.brokerProperties(Map.of("group.min.session.timeout.ms", "1000",
				"group.initial.rebalance.delay.ms", "0", "offsets.topic.num.partitions", "1",
				"auto.create.topics.enable", "false"));
		this.broker.afterPropertiesSet();
		this.admin = AdminClient.create(Map.of("bootstrap.servers", this.broker.getBrokersAsString()));
		this.producer = new KafkaProducer<>(Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG,
				this.broker.getBrokersAsString(), ProducerConfig.ACKS_CONFIG, "all",
				ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true", ProducerConfig.LINGER_MS_CONFIG, "5"),
				new StringSerializer(), new ByteArraySerializer());
		this.dataSource = new HikariDataSource();
		this.dataSource.setJdbcUrl(DATABASE_URL);
		this.dataSource.setUsername(DATABASE_USER);
		this.dataSource.setPassword("");
		this.dataSource.setMaximumPoolSize(2);
		this.dataSource.setPoolName("fault-parent");
		this.jdbc = new JdbcTemplate(this.dataSource);
		ResourceDatabasePopulator schema = new ResourceDatabasePopulator(
				new ClassPathResource("dev/idempotency/store/jdbc/schema-postgresql.sql"),
				new ClassPathResource("fault-schema-postgresql.sql"));
		schema.execute(this.dataSource);
	}

	String runId() {
		return this.runId;
	}

	Path directory() {
		return this.directory;
	}

	JdbcTemplate jdbc() {
		return this.jdbc;
	}

	String bootstrapServers() {
		return this.broker.getBrokersAsString();
	}

	void createTopic(String topic, int partitions) {
		this.broker.addTopics(new NewTopic(topic, partitions, (short) 1), new NewTopic(topic + ".DLT", 1, (short) 1));
	}

	/**
	 * The system properties of a consumer of {@code topic} in {@code group}.
	 * @param applicationName the child's {@code ApplicationName} in PostgreSQL, so that the suite can
	 * find and terminate its connections
	 */
	Map<String, String> consumerProperties(String topic, String group, String applicationName) {
		Map<String, String> properties = new LinkedHashMap<>();
		properties.put("spring.kafka.bootstrap-servers", bootstrapServers());
		properties.put("spring.datasource.url",
				DATABASE_URL + (DATABASE_URL.contains("?") ? "&" : "?") + "ApplicationName=" + applicationName);
		properties.put("spring.datasource.username", DATABASE_USER);
		properties.put("fault.topic", topic);
		properties.put("fault.group", group);
		properties.put("fault.run-id", this.runId);
		// A last resort against orphans (a child also exits when its stdin, our pipe, ends).
		properties.put("fault.max-lifetime-seconds", "7200");
		return properties;
	}

	void sendAndFlush(List<ProducerRecord<String, byte[]>> records) {
		List<java.util.concurrent.Future<?>> sent = new ArrayList<>();
		for (ProducerRecord<String, byte[]> record : records) {
			sent.add(this.producer.send(record));
		}
		this.producer.flush();
		for (java.util.concurrent.Future<?> future : sent) {
			try {
				future.get(30, TimeUnit.SECONDS);
			}
			catch (Exception ex) {
				throw new IllegalStateException("Could not send a record", ex);
			}
		}
	}

	static byte[] json(String orderId, String userId, long points) {
		String id = (orderId != null) ? "\"" + orderId + "\"" : "null";
		return ("{\"orderId\":" + id + ",\"userId\":\"" + userId + "\",\"points\":" + points + "}")
			.getBytes(StandardCharsets.UTF_8);
	}

	/** The group's committed offset of each partition (absent when nothing was committed). */
	Map<Integer, Long> committedOffsets(String group) {
		try {
			Map<TopicPartition, OffsetAndMetadata> offsets = this.admin.listConsumerGroupOffsets(group)
				.partitionsToOffsetAndMetadata()
				.get(30, TimeUnit.SECONDS);
			Map<Integer, Long> result = new HashMap<>();
			offsets.forEach((partition, offset) -> {
				if (offset != null) {
					result.put(partition.partition(), offset.offset());
				}
			});
			return result;
		}
		catch (Exception ex) {
			throw new IllegalStateException(ex);
		}
	}

	/** The end offset of each partition of {@code topic}. */
	Map<Integer, Long> endOffsets(String topic, int partitions) {
		Map<TopicPartition, OffsetSpec> request = new HashMap<>();
		for (int i = 0; i < partitions; i++) {
			request.put(new TopicPartition(topic, i), OffsetSpec.latest());
		}
		try {
			return this.admin.listOffsets(request)
				.all()
				.get(30, TimeUnit.SECONDS)
				.entrySet()
				.stream()
				.collect(Collectors.toMap((entry) -> entry.getKey().partition(), (entry) -> entry.getValue().offset()));
		}
		catch (Exception ex) {
			throw new IllegalStateException(ex);
		}
	}

	/** True when the group's committed offsets reached the end of every partition. */
	boolean caughtUp(String group, String topic, int partitions) {
		Map<Integer, Long> committed = committedOffsets(group);
		Map<Integer, Long> end = endOffsets(topic, partitions);
		return end.entrySet()
			.stream()
			.allMatch((entry) -> entry.getValue() == 0 || entry.getValue().equals(committed.get(entry.getKey())));
	}

	/** Every record of {@code topic} (read from the beginning by a throw-away group). */
	List<ConsumerRecord<String, byte[]>> readAll(String topic, int partitions) {
		Map<Integer, Long> end = endOffsets(topic, partitions);
		List<ConsumerRecord<String, byte[]>> records = new ArrayList<>();
		try (KafkaConsumer<String, byte[]> consumer = new KafkaConsumer<>(
				Map.of(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers(), ConsumerConfig.GROUP_ID_CONFIG,
						"reader-" + UUID.randomUUID(), ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest"),
				new StringDeserializer(), new ByteArrayDeserializer())) {
			List<TopicPartition> assignment = new ArrayList<>();
			for (int i = 0; i < partitions; i++) {
				assignment.add(new TopicPartition(topic, i));
			}
			consumer.assign(assignment);
			consumer.seekToBeginning(assignment);
			long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
			while (System.nanoTime() < deadline && assignment.stream()
				.anyMatch((partition) -> consumer.position(partition) < end.get(partition.partition()))) {
				consumer.poll(Duration.ofMillis(200)).forEach(records::add);
			}
		}
		return records;
	}

	/**
	 * Terminates the PostgreSQL backends of one child ({@code pg_terminate_backend}).
	 * @return how many were terminated
	 */
	int terminateConnections(String applicationName) {
		List<Boolean> terminated = this.jdbc.queryForList(
				"SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = ?", Boolean.class,
				applicationName);
		return (int) terminated.stream().filter(Boolean.TRUE::equals).count();
	}

	/** Ledger rows of this run's orders starting with {@code prefix}, per order. */
	Map<String, Integer> creditsPerOrder(String prefix) {
		Map<String, Integer> credits = new HashMap<>();
		this.jdbc.query("SELECT order_id, COUNT(*) FROM fault_points_ledger WHERE run_id = ? AND order_id LIKE ? "
				+ "GROUP BY order_id", (rs) -> {
					credits.put(rs.getString(1), rs.getInt(2));
				}, this.runId, prefix + "%");
		return credits;
	}

	/** Ledger rows of this run, per incarnation that wrote them. */
	Map<String, Integer> creditsPerChild() {
		Map<String, Integer> credits = new HashMap<>();
		this.jdbc.query("SELECT credited_by, COUNT(*) FROM fault_points_ledger WHERE run_id = ? GROUP BY credited_by",
				(rs) -> {
					credits.put(rs.getString(1), rs.getInt(2));
				}, this.runId);
		return credits;
	}

	/** Who credited an order (the incarnations, one per ledger row). */
	List<String> creditedBy(String orderId) {
		return this.jdbc.queryForList(
				"SELECT credited_by FROM fault_points_ledger WHERE run_id = ? AND order_id = ? ORDER BY id", String.class,
				this.runId, orderId);
	}

	int distinctOrdersCredited(String prefix) {
		return this.jdbc.queryForObject(
				"SELECT COUNT(DISTINCT order_id) FROM fault_points_ledger WHERE run_id = ? AND order_id LIKE ?",
				Integer.class, this.runId, prefix + "%");
	}

	long ledgerSum() {
		Long sum = this.jdbc.queryForObject("SELECT SUM(points) FROM fault_points_ledger WHERE run_id = ?", Long.class,
				this.runId);
		return (sum != null) ? sum : 0;
	}

	Map<String, Long> balances() {
		Map<String, Long> balances = new HashMap<>();
		this.jdbc.query("SELECT user_id, balance FROM fault_points_account WHERE run_id = ?", (rs) -> {
			balances.put(rs.getString(1), rs.getLong(2));
		}, this.runId);
		return balances;
	}

	/** Removes this run's rows (unless {@code -Dfault.keep-data=true}). */
	void deleteRunData(Set<String> groups) {
		if (Boolean.getBoolean("fault.keep-data")) {
			return;
		}
		this.jdbc.update("DELETE FROM fault_points_ledger WHERE run_id = ?", this.runId);
		this.jdbc.update("DELETE FROM fault_points_account WHERE run_id = ?", this.runId);
		for (String group : groups) {
			this.jdbc.update("DELETE FROM idempotency_record WHERE namespace = ?", group);
		}
	}

	@Override
	public void close() {
		ChildConsumer.destroyAll();
		try {
			this.producer.close(Duration.ofSeconds(10));
			this.admin.close(Duration.ofSeconds(10));
		}
		finally {
			try {
				this.broker.destroy();
			}
			finally {
				this.dataSource.close();
			}
		}
	}

}
