package dev.idempotency.kafka;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;

import dev.idempotency.core.MessageFields;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.jspecify.annotations.Nullable;

import org.springframework.kafka.support.KafkaHeaders;

/**
 * Re-drives records of a dead-letter topic ({@code <topic><suffix>}, written by
 * {@link DeadLetterRecoverer}) to the topic they came from, and shows them without sending (a dry
 * run).
 * <p>
 * The dead-letter topic is read by a consumer of its own, without a consumer group: it is assigned
 * the partitions and seeks to {@code fromOffset}, so nothing is committed and the application's
 * groups are untouched. Partitions are read one after the other, in partition order, each from
 * {@code fromOffset} (or its first record) up to the end it had when the call began, until
 * {@code limit} records are read. A {@link Report} says where the next page starts in each
 * partition.
 * <p>
 * A re-driven record goes to its original topic (header {@link KafkaHeaders#DLT_ORIGINAL_TOPIC}) and
 * partition ({@link KafkaHeaders#DLT_ORIGINAL_PARTITION}) with the same key and value bytes and its
 * headers (the {@value MessageFields#MESSAGE_ID} header included) except the dead-letter headers
 * ({@code kafka_dlt-*}). Each send waits for the broker's acknowledgement; the first failure stops
 * the re-drive.
 * <p>
 * Kafka cannot delete a record, so a re-driven record stays in the dead-letter topic, and re-driving
 * it again sends it again. That is safe when the listener's key is the
 * {@value MessageFields#MESSAGE_ID} header or comes from the payload: the consumer finds the key
 * completed and skips the record. A record re-driven whose key was never completed (the point of a
 * re-drive) runs the method. A record without a {@value MessageFields#MESSAGE_ID} header, consumed
 * by a listener whose key is the default ({@code ~kafka:topic:partition:offset}), gets a new key
 * with its new offset, so each re-drive runs it again. A record dead-lettered because it can never
 * succeed (a missing key, a conflicting fingerprint) is dead-lettered again.
 *
 * @since 0.2.0
 */
public class DeadLetterRedrive {

	private static final Log logger = LogFactory.getLog(DeadLetterRedrive.class);

	private static final String DLT_HEADER_PREFIX = "kafka_dlt-";

	private static final Duration POLL_TIMEOUT = Duration.ofMillis(200);

	private final Supplier<Map<String, Object>> consumerProperties;

	private final Supplier<Map<String, Object>> producerProperties;

	private final String suffix;

	private final Duration timeout;

	/**
	 * Creates the re-drive.
	 * @param consumerProperties the Kafka consumer's configuration (bootstrap servers, security,
	 * isolation level); its group, client id, deserializers and commits are replaced
	 * @param producerProperties the Kafka producer's configuration; its serializers and transactional
	 * id are replaced
	 * @param suffix appended to a topic to name its dead-letter topic
	 * @param timeout how long one call may read and, separately, how long one send may wait
	 */
	public DeadLetterRedrive(Map<String, Object> consumerProperties, Map<String, Object> producerProperties,
			String suffix, Duration timeout) {
		this(() -> consumerProperties, () -> producerProperties, suffix, timeout);
	}

	/**
	 * Creates the re-drive with configurations asked for on each call (a consumer or producer factory
	 * that cannot tell its configuration then fails the call, not the application's start).
	 * @param consumerProperties the Kafka consumer's configuration; its group, client id,
	 * deserializers and commits are replaced
	 * @param producerProperties the Kafka producer's configuration; its serializers and transactional
	 * id are replaced
	 * @param suffix appended to a topic to name its dead-letter topic
	 * @param timeout how long one call may read and, separately, how long one send may wait
	 */
	public DeadLetterRedrive(Supplier<Map<String, Object>> consumerProperties,
			Supplier<Map<String, Object>> producerProperties, String suffix, Duration timeout) {
		this.consumerProperties = consumerProperties;
		this.producerProperties = producerProperties;
		this.suffix = suffix;
		this.timeout = timeout;
	}

	/**
	 * The dead-letter topic of a topic.
	 * @param topic the original topic
	 * @return {@code <topic><suffix>}
	 */
	public String deadLetterTopic(String topic) {
		return topic + this.suffix;
	}

	/**
	 * Reads dead letters of a topic without sending anything: what {@link #redrive} would send.
	 * @param topic the original topic (not its dead-letter topic)
	 * @param query which records
	 * @return the records found, {@code sent} 0
	 */
	public Report preview(String topic, Query query) {
		try (Consumer<byte[], byte[]> consumer = createConsumer()) {
			Read read = read(consumer, deadLetterTopic(topic), query);
			return new Report(topic, deadLetterTopic(topic), true,
					read.records().stream().map((record) -> describe(topic, record)).toList(), 0, read.next());
		}
	}

	/**
	 * Re-drives dead letters of a topic to their original topic, in the order they were read.
	 * @param topic the original topic (not its dead-letter topic)
	 * @param query which records
	 * @return the records sent
	 * @throws RedriveException if a send failed; the records before it were sent
	 */
	public Report redrive(String topic, Query query) {
		String deadLetterTopic = deadLetterTopic(topic);
		Read read;
		try (Consumer<byte[], byte[]> consumer = createConsumer()) {
			read = read(consumer, deadLetterTopic, query);
		}
		List<DeadLetter> sent = new ArrayList<>();
		if (read.records().isEmpty()) {
			return new Report(topic, deadLetterTopic, false, sent, 0, read.next());
		}
		try (Producer<byte[], byte[]> producer = createProducer()) {
			for (ConsumerRecord<byte[], byte[]> record : read.records()) {
				DeadLetter deadLetter = describe(topic, record);
				send(producer, deadLetter, record, sent.size(), read.records().size());
				sent.add(deadLetter);
			}
		}
		logger.warn("Re-drove " + sent.size() + " record(s) of '" + deadLetterTopic + "' to '" + topic + "' (next: "
				+ read.next() + ")");
		return new Report(topic, deadLetterTopic, false, sent, sent.size(), read.next());
	}

	private void send(Producer<byte[], byte[]> producer, DeadLetter deadLetter, ConsumerRecord<byte[], byte[]> record,
			int sentBefore, int total) {
		ProducerRecord<byte[], byte[]> redriven = new ProducerRecord<>(deadLetter.originalTopic(),
				deadLetter.originalPartition(), record.key(), record.value(), withoutDeadLetterHeaders(record.headers()));
		try {
			producer.send(redriven).get(this.timeout.toMillis(), TimeUnit.MILLISECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new RedriveException(failure(deadLetter, sentBefore, total), ex);
		}
		catch (ExecutionException | TimeoutException | RuntimeException ex) {
			throw new RedriveException(failure(deadLetter, sentBefore, total),
					(ex instanceof ExecutionException && ex.getCause() != null) ? ex.getCause() : ex);
		}
	}

	private static String failure(DeadLetter deadLetter, int sentBefore, int total) {
		return "Re-drive of " + deadLetter.deadLetterTopic() + "-" + deadLetter.partition() + "@" + deadLetter.offset()
				+ " to '" + deadLetter.originalTopic() + "' failed after " + sentBefore + " of " + total
				+ " record(s) were sent; the rest stay in the dead-letter topic";
	}

	private Read read(Consumer<byte[], byte[]> consumer, String deadLetterTopic, Query query) {
		List<PartitionInfo> infos = consumer.partitionsFor(deadLetterTopic, this.timeout);
		List<TopicPartition> partitions = new ArrayList<>();
		if (infos != null) {
			infos.stream()
				.map(PartitionInfo::partition)
				.filter((partition) -> query.partition() == null || query.partition() == partition)
				.sorted(Comparator.naturalOrder())
				.forEach((partition) -> partitions.add(new TopicPartition(deadLetterTopic, partition)));
		}
		List<ConsumerRecord<byte[], byte[]>> records = new ArrayList<>();
		Map<Integer, Long> next = new LinkedHashMap<>();
		if (partitions.isEmpty()) {
			return new Read(records, next);
		}
		// Assigned before asking for offsets (the client warns about offsets of unassigned partitions);
		// read one at a time, the others paused
		consumer.assign(partitions);
		consumer.pause(partitions);
		Map<TopicPartition, Long> beginnings = consumer.beginningOffsets(partitions, this.timeout);
		Map<TopicPartition, Long> ends = consumer.endOffsets(partitions, this.timeout);
		long deadline = System.nanoTime() + this.timeout.toNanos();
		for (TopicPartition partition : partitions) {
			long position = Math.max(query.fromOffset(), beginnings.getOrDefault(partition, 0L));
			long end = ends.getOrDefault(partition, 0L);
			if (records.size() < query.limit() && position < end) {
				consumer.seek(partition, position);
				consumer.resume(List.of(partition));
				while (records.size() < query.limit() && position < end) {
					if (System.nanoTime() > deadline) {
						throw new RedriveException("Reading '" + deadLetterTopic + "' took longer than " + this.timeout
								+ " (" + records.size() + " record(s) read, partition " + partition.partition()
								+ " at offset " + position + " of " + end + ")", null);
					}
					for (ConsumerRecord<byte[], byte[]> record : consumer.poll(POLL_TIMEOUT).records(partition)) {
						if (records.size() < query.limit() && record.offset() < end) {
							records.add(record);
							position = record.offset() + 1;
						}
					}
					if (records.size() < query.limit()) {
						// Skips transaction markers and compacted gaps
						position = Math.max(position, consumer.position(partition, this.timeout));
					}
				}
				consumer.pause(List.of(partition));
			}
			next.put(partition.partition(), position);
		}
		return new Read(records, next);
	}

	private DeadLetter describe(String topic, ConsumerRecord<byte[], byte[]> record) {
		Headers headers = record.headers();
		String originalTopic = text(headers, KafkaHeaders.DLT_ORIGINAL_TOPIC);
		return new DeadLetter(record.topic(), record.partition(), record.offset(),
				(originalTopic != null) ? originalTopic : topic, integer(headers, KafkaHeaders.DLT_ORIGINAL_PARTITION),
				longValue(headers, KafkaHeaders.DLT_ORIGINAL_OFFSET), text(headers, MessageFields.MESSAGE_ID),
				text(headers, KafkaHeaders.DLT_EXCEPTION_FQCN), text(headers, KafkaHeaders.DLT_EXCEPTION_CAUSE_FQCN),
				text(headers, KafkaHeaders.DLT_EXCEPTION_MESSAGE));
	}

	private static Headers withoutDeadLetterHeaders(Headers headers) {
		RecordHeaders kept = new RecordHeaders();
		for (Header header : headers) {
			if (!header.key().startsWith(DLT_HEADER_PREFIX)) {
				kept.add(header);
			}
		}
		return kept;
	}

	private static @Nullable String text(Headers headers, String name) {
		Header header = headers.lastHeader(name);
		return (header != null && header.value() != null) ? new String(header.value(), StandardCharsets.UTF_8) : null;
	}

	private static @Nullable Integer integer(Headers headers, String name) {
		Header header = headers.lastHeader(name);
		return (header != null && header.value() != null && header.value().length == Integer.BYTES)
				? ByteBuffer.wrap(header.value()).getInt() : null;
	}

	private static @Nullable Long longValue(Headers headers, String name) {
		Header header = headers.lastHeader(name);
		return (header != null && header.value() != null && header.value().length == Long.BYTES)
				? ByteBuffer.wrap(header.value()).getLong() : null;
	}

	/**
	 * Creates the consumer of one call. Called once per call; closed by the caller.
	 * @return a consumer of bytes, without a group
	 */
	protected Consumer<byte[], byte[]> createConsumer() {
		return new KafkaConsumer<>(consumerProperties(this.consumerProperties.get()), new ByteArrayDeserializer(),
				new ByteArrayDeserializer());
	}

	/**
	 * Creates the producer of one re-drive. Closed by the caller.
	 * @return a producer of bytes, not transactional
	 */
	protected Producer<byte[], byte[]> createProducer() {
		return new KafkaProducer<>(producerProperties(this.producerProperties.get()), new ByteArraySerializer(),
				new ByteArraySerializer());
	}

	private static Map<String, Object> consumerProperties(Map<String, Object> properties) {
		Map<String, Object> copy = new HashMap<>(properties);
		// No group: assign and seek only, nothing committed, the application's groups untouched
		copy.remove(ConsumerConfig.GROUP_ID_CONFIG);
		copy.remove(ConsumerConfig.GROUP_INSTANCE_ID_CONFIG);
		copy.remove(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG);
		copy.remove(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG);
		copy.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
		// Asking for the partitions of a missing dead-letter topic must not create it
		copy.put(ConsumerConfig.ALLOW_AUTO_CREATE_TOPICS_CONFIG, false);
		copy.put(ConsumerConfig.CLIENT_ID_CONFIG, "idempotency-dlt-redrive");
		return copy;
	}

	private static Map<String, Object> producerProperties(Map<String, Object> properties) {
		Map<String, Object> copy = new HashMap<>(properties);
		copy.remove(ProducerConfig.TRANSACTIONAL_ID_CONFIG);
		copy.remove(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG);
		copy.remove(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG);
		copy.put(ProducerConfig.CLIENT_ID_CONFIG, "idempotency-dlt-redrive");
		return copy;
	}

	private record Read(List<ConsumerRecord<byte[], byte[]>> records, Map<Integer, Long> next) {
	}

	/**
	 * Which dead letters to read.
	 * @param fromOffset the first offset to read in each partition (earlier records are skipped); 0
	 * for the beginning
	 * @param partition only this partition of the dead-letter topic, or {@code null} for all
	 * @param limit the most records
	 */
	public record Query(long fromOffset, @Nullable Integer partition, int limit) {

		/**
		 * Validates the query.
		 * @param fromOffset the first offset, at least 0
		 * @param partition the partition, or {@code null}
		 * @param limit the most records, at least 1
		 */
		public Query {
			if (fromOffset < 0) {
				throw new IllegalArgumentException("fromOffset must be at least 0");
			}
			if (limit < 1) {
				throw new IllegalArgumentException("limit must be at least 1");
			}
		}

	}

	/**
	 * A record of a dead-letter topic. No key and no value: they are business content.
	 * @param deadLetterTopic the dead-letter topic
	 * @param partition its partition in the dead-letter topic
	 * @param offset its offset in the dead-letter topic
	 * @param originalTopic where it came from, and where it is re-driven to
	 * @param originalPartition its partition there, or {@code null} without the header (the
	 * producer then chooses)
	 * @param originalOffset its offset there, or {@code null} without the header
	 * @param messageId its {@value MessageFields#MESSAGE_ID} header, or {@code null}
	 * @param exceptionClass the class of the exception that dead-lettered it
	 * @param exceptionCauseClass the class of that exception's cause
	 * @param exceptionMessage the exception's message
	 */
	public record DeadLetter(String deadLetterTopic, int partition, long offset, String originalTopic,
			@Nullable Integer originalPartition, @Nullable Long originalOffset, @Nullable String messageId,
			@Nullable String exceptionClass, @Nullable String exceptionCauseClass, @Nullable String exceptionMessage) {
	}

	/**
	 * What a preview found or a re-drive sent.
	 * @param topic the original topic asked for
	 * @param deadLetterTopic its dead-letter topic
	 * @param dryRun {@code true} for a preview: nothing was sent
	 * @param records the records read (a preview) or sent (a re-drive), in that order
	 * @param sent how many records were sent
	 * @param nextOffsets per partition of the dead-letter topic read, the offset a next page starts at
	 */
	public record Report(String topic, String deadLetterTopic, boolean dryRun, List<DeadLetter> records, int sent,
			Map<Integer, Long> nextOffsets) {
	}

	/**
	 * A re-drive that could not read or send all its records.
	 */
	public static class RedriveException extends RuntimeException {

		RedriveException(String message, @Nullable Throwable cause) {
			super(message, cause);
		}

	}

}
