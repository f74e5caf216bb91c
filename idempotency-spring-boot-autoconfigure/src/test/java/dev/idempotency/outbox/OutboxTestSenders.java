package dev.idempotency.outbox;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;

import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.serialization.StringDeserializer;

/**
 * Senders and readers the outbox tests share.
 */
final class OutboxTestSenders {

	private OutboxTestSenders() {
	}

	/**
	 * Delegates, except that it fails every message the predicate accepts (a broker outage, a
	 * poisoned key) and counts what it sent.
	 */
	static final class FlakySender implements OutboxSender {

		private final OutboxSender delegate;

		volatile Predicate<OutboxMessage> failing = (message) -> false;

		final AtomicInteger sent = new AtomicInteger();

		final AtomicInteger failed = new AtomicInteger();

		final Map<String, AtomicInteger> attemptsPerMessage = new ConcurrentHashMap<>();

		FlakySender(OutboxSender delegate) {
			this.delegate = delegate;
		}

		@Override
		public String scheme() {
			return this.delegate.scheme();
		}

		@Override
		public CompletableFuture<?> send(String target, OutboxMessage message) {
			this.attemptsPerMessage.computeIfAbsent(message.messageId(), (id) -> new AtomicInteger()).incrementAndGet();
			if (this.failing.test(message)) {
				this.failed.incrementAndGet();
				return CompletableFuture.failedFuture(new IllegalStateException("broker unavailable (test)"));
			}
			return this.delegate.send(target, message).thenApply((result) -> {
				this.sent.incrementAndGet();
				return result;
			});
		}

	}

	/**
	 * Delegates, but holds every acknowledgement (and every failure it is told to report) until
	 * {@link #release()}, and logs, in order, each send ({@code send:<payload>}) and each outcome the
	 * relay will see ({@code ack:<payload>}, {@code fail:<payload>}).
	 */
	static final class HoldingSender implements OutboxSender {

		private final OutboxSender delegate;

		private final CompletableFuture<Void> released = new CompletableFuture<>();

		/** Messages whose first send fails, once released, as a broker failure. */
		volatile Predicate<OutboxMessage> failFirstSend = (message) -> false;

		final List<String> events = new CopyOnWriteArrayList<>();

		final AtomicInteger sends = new AtomicInteger();

		private final Map<String, AtomicInteger> sendsPerMessage = new ConcurrentHashMap<>();

		HoldingSender(OutboxSender delegate) {
			this.delegate = delegate;
		}

		void release() {
			this.released.complete(null);
		}

		@Override
		public String scheme() {
			return this.delegate.scheme();
		}

		@Override
		public CompletableFuture<?> send(String target, OutboxMessage message) {
			this.events.add("send:" + message.payload());
			this.sends.incrementAndGet();
			boolean first = this.sendsPerMessage.computeIfAbsent(message.messageId(), (id) -> new AtomicInteger())
				.incrementAndGet() == 1;
			if (first && this.failFirstSend.test(message)) {
				return this.released.thenCompose((ignored) -> {
					this.events.add("fail:" + message.payload());
					return CompletableFuture.failedFuture(new IllegalStateException("broker unavailable (test)"));
				});
			}
			CompletableFuture<?> sent = this.delegate.send(target, message);
			return sent.thenCombine(this.released, (result, ignored) -> {
				this.events.add("ack:" + message.payload());
				return result;
			});
		}

	}

	/**
	 * Reads a topic from its beginning until {@code expected} records arrived or the timeout passed,
	 * then a little longer, to catch records beyond the expected count.
	 */
	static List<ConsumerRecord<String, String>> readTopic(String bootstrapServers, String topic, int expected,
			Duration timeout) {
		List<ConsumerRecord<String, String>> records = new ArrayList<>();
		try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(Map.of(
				ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers, ConsumerConfig.GROUP_ID_CONFIG,
				"outbox-reader-" + System.nanoTime(), ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest",
				ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 2000), new StringDeserializer(), new StringDeserializer())) {
			consumer.subscribe(List.of(topic));
			long deadline = System.nanoTime() + timeout.toNanos();
			while (records.size() < expected && System.nanoTime() < deadline) {
				consumer.poll(Duration.ofMillis(200)).forEach(records::add);
			}
			long grace = System.nanoTime() + Duration.ofMillis(500).toNanos();
			while (System.nanoTime() < grace) {
				consumer.poll(Duration.ofMillis(100)).forEach(records::add);
			}
		}
		return records;
	}

	static String messageId(ConsumerRecord<String, String> record) {
		return new String(record.headers().lastHeader("message-id").value(), java.nio.charset.StandardCharsets.UTF_8);
	}

}
