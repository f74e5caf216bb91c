package dev.idempotency.fault;

import java.io.FileOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collection;

import dev.idempotency.core.IdempotencyEvent;
import dev.idempotency.core.IdempotencyListener;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.TopicPartition;

import org.springframework.core.NestedExceptionUtils;
import org.springframework.kafka.listener.ConsumerAwareRebalanceListener;
import org.springframework.kafka.listener.RecordInterceptor;

/**
 * This incarnation's append-only journal of deliveries and outcomes, one line per event, each
 * written with its own {@code write} system call (no user-space buffer), so a line written before a
 * SIGKILL is in the file. Lines:
 * <pre>
 * R &lt;partition&gt; &lt;offset&gt; &lt;orderId|-&gt;      a record reached the listener (RecordInterceptor)
 * O &lt;outcome&gt; &lt;key|-&gt; &lt;exception|-&gt;        the @Idempotent invocation ended (IdempotencyListener)
 * D &lt;source&gt; &lt;destination&gt; &lt;exception&gt;   a record was dead-lettered
 * A &lt;generation&gt; &lt;partitions&gt;             partitions assigned after a rebalance
 * S clean                                  the application shut down cleanly
 * </pre>
 * With one consumer thread per child, an incarnation's R and O lines alternate; a SIGKILL leaves at
 * most one R without its O: the delivery in flight.
 */
public final class EventJournal implements IdempotencyListener, RecordInterceptor<Object, Object>,
		ConsumerAwareRebalanceListener {

	private final FileOutputStream out;

	EventJournal(Path file) {
		try {
			Files.createDirectories(file.toAbsolutePath().getParent());
			this.out = new FileOutputStream(file.toFile(), true);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	synchronized void write(String line) {
		try {
			this.out.write((line + "\n").getBytes(StandardCharsets.UTF_8));
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	@Override
	public ConsumerRecord<Object, Object> intercept(ConsumerRecord<Object, Object> record,
			Consumer<Object, Object> consumer) {
		String orderId = (record.value() instanceof OrderPlaced order) ? blankToDash(order.orderId()) : "?";
		write("R " + record.partition() + " " + record.offset() + " " + orderId);
		return record;
	}

	@Override
	public void onOutcome(IdempotencyEvent event) {
		String failure = (event.failure() != null)
				? NestedExceptionUtils.getMostSpecificCause(event.failure()).getClass().getSimpleName() : "-";
		write("O " + event.outcome().tag() + " " + blankToDash(event.key()) + " " + failure);
	}

	@Override
	public void onDeadLettered(String source, String destination, Throwable cause) {
		write("D " + source + " " + destination + " "
				+ NestedExceptionUtils.getMostSpecificCause(cause).getClass().getSimpleName());
	}

	@Override
	public void onPartitionsAssigned(Consumer<?, ?> consumer, Collection<TopicPartition> partitions) {
		int generation;
		try {
			generation = consumer.groupMetadata().generationId();
		}
		catch (RuntimeException ex) {
			generation = -1;
		}
		String assigned = partitions.stream()
			.map((partition) -> String.valueOf(partition.partition()))
			.sorted()
			.reduce((a, b) -> a + "," + b)
			.orElse("");
		write("A " + generation + " " + (assigned.isEmpty() ? "-" : assigned));
		FaultConsumerApplication.announce("ASSIGNED generation=" + generation + " partitions=" + assigned);
	}

	void closeCleanly() {
		write("S clean");
	}

	private static String blankToDash(String value) {
		return (value == null || value.isBlank()) ? "-" : value.replace(' ', '_');
	}

}
