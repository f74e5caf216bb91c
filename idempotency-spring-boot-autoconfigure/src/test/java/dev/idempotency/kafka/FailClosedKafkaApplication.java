package dev.idempotency.kafka;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

import dev.idempotency.annotation.Idempotent;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.kafka.annotation.KafkaListener;
import org.springframework.kafka.config.ContainerCustomizer;
import org.springframework.kafka.listener.ConcurrentMessageListenerContainer;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * The application of the Kafka fail-closed tests: a record listener, a batch listener, a
 * listener with a poison message and a record listener without an error handler, all {@code @Idempotent} with the JDBC store in transactional
 * mode, crediting a ledger table and noting when each credit committed.
 */
@SpringBootConfiguration
@EnableAutoConfiguration
class FailClosedKafkaApplication {

	static final String RECORDS = "fc-records";

	static final String BATCH = "fc-batch";

	static final String POISON = "fc-poison";

	/**
	 * A record listener whose container has no error handler: with Kafka transactions its failures
	 * go straight to the after-rollback processor.
	 */
	static final String ROLLBACK_ONLY = "fc-rollback-only";

	@Bean
	SimpleMeterRegistry meterRegistry() {
		return new SimpleMeterRegistry();
	}

	@Bean
	ContainerCustomizer<Object, Object, ConcurrentMessageListenerContainer<Object, Object>> noErrorHandler() {
		return (container) -> {
			if (ROLLBACK_ONLY.equals(container.getListenerId())) {
				container.setCommonErrorHandler(null);
			}
		};
	}

	@Bean
	Commits commits() {
		return new Commits();
	}

	@Bean
	FailClosedListeners failClosedListeners(JdbcTemplate jdbc, Commits commits) {
		jdbc.execute("DROP TABLE IF EXISTS kafka_fc_ledger");
		jdbc.execute("CREATE TABLE kafka_fc_ledger (listener VARCHAR(32) NOT NULL, order_id VARCHAR(64) NOT NULL)");
		jdbc.update("DELETE FROM idempotency_record WHERE namespace LIKE 'fc-%'");
		return new FailClosedListeners(jdbc, commits);
	}

	/** When the listeners' transactions committed, in the order they did, per listener. */
	static final class Commits {

		private final Map<String, List<Long>> nanos = new ConcurrentHashMap<>();

		private final Map<String, AtomicInteger> credits = new ConcurrentHashMap<>();

		/** Notes {@code count} credits of a listener when the current transaction commits. */
		void afterCommit(String listener, int count) {
			TransactionSynchronizationManager.registerSynchronization(new TransactionSynchronization() {

				@Override
				public void afterCommit() {
					Commits.this.nanos.computeIfAbsent(listener, (id) -> new CopyOnWriteArrayList<>())
						.add(System.nanoTime());
					Commits.this.credits.computeIfAbsent(listener, (id) -> new AtomicInteger()).addAndGet(count);
				}

			});
		}

		int credits(String listener) {
			AtomicInteger count = this.credits.get(listener);
			return (count != null) ? count.get() : 0;
		}

		/** The first commit of a listener at or after {@code nanoTime}, or -1. */
		long firstCommitSince(String listener, long nanoTime) {
			return this.nanos.getOrDefault(listener, List.of())
				.stream()
				.filter((at) -> at - nanoTime >= 0)
				.findFirst()
				.orElse(-1L);
		}

	}

	static class FailClosedListeners {

		private final JdbcTemplate jdbc;

		private final Commits commits;

		private final AtomicInteger poisonInvocations = new AtomicInteger();

		FailClosedListeners(JdbcTemplate jdbc, Commits commits) {
			this.jdbc = jdbc;
			this.commits = commits;
		}

		/** Calls of the method with a poison record (a method, since the bean is a proxy). */
		public int poisonInvocations() {
			return this.poisonInvocations.get();
		}

		@KafkaListener(id = RECORDS, topics = RECORDS, groupId = RECORDS)
		@Idempotent(key = "#payload.split(':')[0]", namespace = RECORDS)
		public void onRecord(String payload) {
			credit(RECORDS, payload);
			this.commits.afterCommit(RECORDS, 1);
		}

		@KafkaListener(id = ROLLBACK_ONLY, topics = ROLLBACK_ONLY, groupId = ROLLBACK_ONLY)
		@Idempotent(key = "#payload.split(':')[0]", namespace = ROLLBACK_ONLY)
		public void onRecordWithoutErrorHandler(String payload) {
			credit(ROLLBACK_ONLY, payload);
			this.commits.afterCommit(ROLLBACK_ONLY, 1);
		}

		@KafkaListener(id = BATCH, topics = BATCH, groupId = BATCH, batch = "true")
		@Idempotent(key = "#element.split(':')[0]", namespace = BATCH)
		public void onBatch(List<String> payloads) {
			payloads.forEach((payload) -> credit(BATCH, payload));
			this.commits.afterCommit(BATCH, payloads.size());
		}

		@KafkaListener(id = POISON, topics = POISON, groupId = POISON)
		@Idempotent(key = "#payload.split(':')[0]", namespace = POISON)
		public void onPossiblePoison(String payload) {
			if (payload.startsWith("poison")) {
				this.poisonInvocations.incrementAndGet();
				throw new IllegalStateException("poison record " + payload);
			}
			credit(POISON, payload);
			this.commits.afterCommit(POISON, 1);
		}

		private void credit(String listener, String payload) {
			this.jdbc.update("INSERT INTO kafka_fc_ledger (listener, order_id) VALUES (?, ?)", listener,
					payload.split(":")[0]);
		}

	}

}
