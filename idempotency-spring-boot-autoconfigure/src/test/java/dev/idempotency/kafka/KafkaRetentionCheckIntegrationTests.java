package dev.idempotency.kafka;

import java.io.IOException;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import dev.idempotency.annotation.Idempotent;
import dev.idempotency.autoconfigure.DedupRetentionTooShortException;
import dev.idempotency.testsupport.TestKafkaBrokers;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.config.TopicConfig;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.kafka.annotation.KafkaHandler;
import org.springframework.kafka.annotation.KafkaListener;
import org.springframework.kafka.annotation.TopicPartition;
import org.springframework.kafka.test.EmbeddedKafkaKraftBroker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The start-up retention check ({@code idempotency.kafka.retention-check}) on an in-process KRaft
 * broker: a topic that keeps records for 10 days read by an {@code @Idempotent} listener that
 * keeps its keys for 7 days is a warning, or a failed start-up in {@code fail} mode; 12 days pass;
 * an unreachable broker neither fails nor holds up start-up for longer than the check's timeout.
 * The store is the JDBC one on an embedded H2 database.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@ExtendWith(OutputCaptureExtension.class)
class KafkaRetentionCheckIntegrationTests {

	private static final long TEN_DAYS_MS = Duration.ofDays(10).toMillis();

	private EmbeddedKafkaKraftBroker broker;

	@BeforeAll
	void startBroker() {
		this.broker = TestKafkaBrokers.withSmallInternalTopics(new EmbeddedKafkaKraftBroker(1, 1));
		this.broker.afterPropertiesSet();
		this.broker.addTopics(
				new NewTopic("retained-10d", 1, (short) 1)
					.configs(Map.of(TopicConfig.RETENTION_MS_CONFIG, String.valueOf(TEN_DAYS_MS))),
				new NewTopic("partitioned-10d", 2, (short) 1)
					.configs(Map.of(TopicConfig.RETENTION_MS_CONFIG, String.valueOf(TEN_DAYS_MS))),
				new NewTopic("forever", 1, (short) 1).configs(Map.of(TopicConfig.RETENTION_MS_CONFIG, "-1")),
				new NewTopic("compacted", 1, (short) 1)
					.configs(Map.of(TopicConfig.CLEANUP_POLICY_CONFIG, TopicConfig.CLEANUP_POLICY_COMPACT)));
	}

	@AfterAll
	void stopBroker() {
		this.broker.destroy();
	}

	@Test
	void warnModeLogsTheShortRetentionWithBothNumbersAndTheFix(CapturedOutput output) {
		int mark = output.getAll().length();
		try (ConfigurableApplicationContext context = run(SevenDayListener.class)) {
			assertThat(context.isRunning()).isTrue();
		}
		String logged = since(output, mark);
		assertThat(logged).containsOnlyOnce("@Idempotent SevenDayListener#onRecord keeps keys for 7d")
			.contains("topic 'retained-10d' keeps records for 10d (retention.ms=864000000)")
			.contains("to at least 11d")
			.contains("lower the topic's retention.ms to at most 518400000 (6d)");
		assertThat(logged.lines().filter((line) -> line.contains("keeps keys for 7d"))).singleElement()
			.asString()
			.contains("WARN");
	}

	@Test
	void failModeFailsStartUpNamingBothRetentions(CapturedOutput output) {
		int mark = output.getAll().length();
		assertThatThrownBy(() -> run(SevenDayListener.class, "idempotency.kafka.retention-check=fail").close())
			.satisfies((ex) -> assertThat(cause(ex, DedupRetentionTooShortException.class)).isNotNull()
				.extracting(Throwable::getMessage)
				.asString()
				.contains("SevenDayListener#onRecord keeps keys for 7d")
				.contains("keeps records for 10d (retention.ms=864000000)")
				.contains("at least 11d"));
		assertThat(since(output, mark)).contains("APPLICATION FAILED TO START")
			.contains("A replayed Kafka record would be processed twice")
			.contains("raise idempotency.retention");
	}

	@Test
	void retentionCoveringTheTopicAndTheMarginPassesWithoutAWarning(CapturedOutput output) {
		int mark = output.getAll().length();
		try (ConfigurableApplicationContext context = run(SevenDayListener.class, "idempotency.kafka.retention-check=fail",
				"test.retention=12d")) {
			assertThat(context.isRunning()).isTrue();
		}
		assertThat(since(output, mark)).doesNotContain("keeps keys for")
			.doesNotContain("Retention check:")
			.doesNotContain("Retention check could not run")
			.contains("Retention check of [retained-10d] took");
	}

	@Test
	void defaultRetentionIsIdempotencyRetention() {
		try (ConfigurableApplicationContext context = run(SevenDayListener.class, "idempotency.kafka.retention-check=fail",
				"test.retention=", "idempotency.retention=11d")) {
			assertThat(context.isRunning()).isTrue();
		}
		assertThatThrownBy(() -> run(SevenDayListener.class, "idempotency.kafka.retention-check=fail", "test.retention=",
				"idempotency.retention=10d")
			.close()).satisfies((ex) -> assertThat(cause(ex, DedupRetentionTooShortException.class)).isNotNull()
				.extracting(Throwable::getMessage)
				.asString()
				.contains("keeps keys for 10d"));
	}

	@Test
	void placeholdersExpressionsPartitionsAndKafkaHandlersAreCheckedAndWhatCannotBeIsLoggedAtInfo(
			CapturedOutput output) {
		int mark = output.getAll().length();
		try (ConfigurableApplicationContext context = run(DiscoveredListeners.class, HandlerListener.class,
				"test.partitioned-topic=partitioned-10d")) {
			assertThat(context.isRunning()).isTrue();
		}
		String logged = since(output, mark);
		assertThat(logged).contains("@Idempotent DiscoveredListeners#fromPartitions keeps keys for 7d but topic "
				+ "'partitioned-10d'")
			.contains("@Idempotent DiscoveredListeners#fromExpression keeps keys for 7d but topic 'retained-10d'")
			.contains("@Idempotent HandlerListener#handle keeps keys for 7d but topic 'retained-10d'")
			.containsOnlyOnce("Topic 'forever' read by @Idempotent DiscoveredListeners#alsoForever, "
					+ "DiscoveredListeners#unbounded keeps records without a time limit (retention.ms=-1)")
			.contains("Topic 'compacted' read by @Idempotent DiscoveredListeners#unbounded is compacted")
			.contains("reads topic pattern 'retained-.*'; topics matched by a pattern are not checked")
			.contains("topic 'not-created' does not exist (yet)")
			.doesNotContain("DiscoveredListeners#notIdempotent")
			.doesNotContain("DiscoveredListeners#covered");
		assertThat(logged.lines().filter((line) -> line.contains("Topic 'forever'"))).singleElement()
			.asString()
			.contains("INFO");
	}

	@Test
	void unreachableBrokerNeitherFailsNorHoldsUpStartUpLongerThanTheTimeout(CapturedOutput output) throws IOException {
		int mark = output.getAll().length();
		long start = System.nanoTime();
		try (ConfigurableApplicationContext context = run(SevenDayListener.class, "idempotency.kafka.retention-check=fail",
				"spring.kafka.bootstrap-servers=127.0.0.1:" + closedPort())) {
			assertThat(context.isRunning()).isTrue();
		}
		long elapsedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
		System.out.println("Start-up with an unreachable broker took " + elapsedMs + " ms");
		// The check waits 5 s at most (retention-check-timeout); the rest is the application's start.
		assertThat(elapsedMs).isLessThan(12_000);
		assertThat(since(output, mark)).contains("Retention check could not run")
			.contains("not read within 5s")
			.doesNotContain("keeps keys for");
	}

	private ConfigurableApplicationContext run(Class<?> listeners, String... properties) {
		return run(listeners, null, properties);
	}

	private ConfigurableApplicationContext run(Class<?> listeners, Class<?> moreListeners, String... properties) {
		Map<String, String> all = new LinkedHashMap<>();
		for (String property : List.of("spring.kafka.bootstrap-servers=" + this.broker.getBrokersAsString(),
				"idempotency.jdbc.purge.enabled=false", "logging.level.dev.idempotency.kafka.KafkaRetentionCheck=debug")) {
			all.put(property.substring(0, property.indexOf('=')), property);
		}
		for (String property : properties) {
			all.put(property.substring(0, property.indexOf('=')), property);
		}
		SpringApplicationBuilder builder = new SpringApplicationBuilder(RetentionCheckApplication.class, listeners)
			.web(WebApplicationType.NONE);
		if (moreListeners != null) {
			builder.sources(moreListeners);
		}
		// Arguments, not default properties: the embedded broker sets spring.kafka.bootstrap-servers as
		// a system property, which outranks default properties. One argument per name: repeated ones
		// are joined with commas.
		return builder.run(all.values().stream().map((property) -> "--" + property).toArray(String[]::new));
	}

	/** What was printed since {@code mark}: the capture spans the whole class. */
	private static String since(CapturedOutput output, int mark) {
		return output.getAll().substring(mark);
	}

	private static int closedPort() throws IOException {
		try (ServerSocket socket = new ServerSocket(0)) {
			return socket.getLocalPort();
		}
	}

	private static <T extends Throwable> T cause(Throwable ex, Class<T> type) {
		for (Throwable candidate = ex; candidate != null; candidate = candidate.getCause()) {
			if (type.isInstance(candidate)) {
				return type.cast(candidate);
			}
		}
		return null;
	}

	@SpringBootConfiguration
	@EnableAutoConfiguration
	static class RetentionCheckApplication {

	}

	static class SevenDayListener {

		@KafkaListener(topics = "${test.topic:retained-10d}", groupId = "seven", autoStartup = "false")
		@Idempotent(key = "#payload", retention = "${test.retention:7d}")
		void onRecord(String payload) {
		}

	}

	static class DiscoveredListeners {

		@KafkaListener(topicPartitions = @TopicPartition(topic = "${test.partitioned-topic}", partitions = "0"),
				groupId = "partitions", autoStartup = "false")
		@Idempotent(key = "#payload")
		void fromPartitions(String payload) {
		}

		@KafkaListener(topics = "#{'retained-' + '10d'}", groupId = "expression", autoStartup = "false")
		@Idempotent(key = "#payload")
		void fromExpression(String payload) {
		}

		@KafkaListener(topics = { "forever", "compacted", "not-created" }, groupId = "unbounded",
				autoStartup = "false")
		@Idempotent(key = "#payload", retention = "3650d")
		void unbounded(String payload) {
		}

		@KafkaListener(topics = "forever", groupId = "also-forever", autoStartup = "false")
		@Idempotent(key = "#payload")
		void alsoForever(String payload) {
		}

		@KafkaListener(topicPattern = "retained-.*", groupId = "pattern", autoStartup = "false")
		@Idempotent(key = "#payload")
		void fromPattern(String payload) {
		}

		@KafkaListener(topics = "retained-10d", groupId = "covered", autoStartup = "false")
		@Idempotent(key = "#payload", retention = "11d")
		void covered(String payload) {
		}

		@KafkaListener(topics = "retained-10d", groupId = "plain", autoStartup = "false")
		void notIdempotent(String payload) {
		}

	}

	@KafkaListener(topics = "retained-10d", groupId = "handler", autoStartup = "false")
	static class HandlerListener {

		@KafkaHandler
		@Idempotent(key = "#payload")
		void handle(String payload) {
		}

	}

}
