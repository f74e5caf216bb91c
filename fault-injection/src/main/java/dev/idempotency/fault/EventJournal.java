package dev.idempotency.fault;

import java.io.FileOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Locale;

import dev.idempotency.core.IdempotencyEvent;
import dev.idempotency.core.IdempotencyListener;
import dev.idempotency.core.IdempotencyReconciler;
import dev.idempotency.core.UnfinishedClaim;
import dev.idempotency.redis.stream.StreamConsumerListener;
import org.jspecify.annotations.Nullable;

import org.springframework.core.NestedExceptionUtils;

/**
 * This incarnation's append-only journal of deliveries and outcomes, one line per event, each
 * written with its own {@code write} system call (no user-space buffer), so a line written before a
 * SIGKILL is in the file. Lines:
 * <pre>
 * R &lt;partition&gt; &lt;offset&gt; &lt;orderId|-&gt;      a delivery reached the listener (written by the transport's hook)
 * O &lt;outcome&gt; &lt;key|-&gt; &lt;exception|-&gt;        the @Idempotent invocation ended (IdempotencyListener)
 * N &lt;partition&gt; &lt;offset&gt; &lt;orderId&gt;        Kafka batch container: a delivery returned unsettled, after a failed record of its poll
 * D &lt;source&gt; &lt;destination&gt; &lt;exception&gt;   a delivery was dead-lettered
 * A &lt;generation&gt; &lt;partitions&gt;             Kafka: partitions assigned after a rebalance
 * C &lt;stream&gt; &lt;count&gt;                     Redis Stream: entries claimed from idle consumers
 * P &lt;listener&gt; &lt;exception&gt;              fail-closed: the listener paused (the infrastructure failed)
 * U &lt;listener&gt; &lt;millis&gt;                 fail-closed: the listener resumed after that long
 * V &lt;verdict|-&gt; &lt;key&gt; &lt;settled&gt; &lt;ns&gt;    leased mode: a reconciler decided an unfinished claim
 * S clean                                  the application shut down cleanly
 * </pre>
 * A Redis Stream entry's partition and offset are the sequence and the millisecond parts of its
 * record id. Each listener thread's R and O lines alternate; a SIGKILL leaves at most one R without
 * its O per thread: the delivery in flight. A Kafka batch container writes the R lines of a whole
 * poll first, then an O line for each record settled and an N line for each returned; a SIGKILL
 * leaves at most a poll in flight.
 */
public final class EventJournal implements IdempotencyListener, StreamConsumerListener {

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

	/** A delivery reached the listener. */
	void received(long partition, long offset, String orderId) {
		write("R " + partition + " " + offset + " " + blankToDash(orderId));
	}

	/** A delivery reached the listener and was returned unsettled: it is delivered again. */
	void returned(long partition, long offset, String orderId) {
		write("N " + partition + " " + offset + " " + blankToDash(orderId));
	}

	@Override
	public void onOutcome(IdempotencyEvent event) {
		String failure = (event.failure() != null)
				? NestedExceptionUtils.getMostSpecificCause(event.failure()).getClass().getSimpleName() : "-";
		write("O " + event.outcome().tag() + " " + blankToDash(event.key()) + " " + failure);
	}

	@Override
	public void onReconciled(String store, UnfinishedClaim claim, IdempotencyReconciler.@Nullable Verdict verdict,
			boolean settled) {
		String decided = (verdict != null) ? verdict.name().toLowerCase(Locale.ROOT) : "-";
		write("V " + decided + " " + blankToDash(claim.key().value()) + " " + settled + " "
				+ blankToDash(claim.key().namespace()));
		FaultChild.announce("VERDICT " + decided + " key=" + claim.key().value() + " settled=" + settled);
	}

	@Override
	public void onDeadLettered(String source, String destination, Throwable cause) {
		write("D " + source + " " + destination + " "
				+ NestedExceptionUtils.getMostSpecificCause(cause).getClass().getSimpleName());
	}

	@Override
	public void onStreamReclaimed(String stream, String group, int count) {
		write("C " + stream + " " + count);
	}

	@Override
	public void onListenerPaused(String listener, Throwable cause) {
		String exception = NestedExceptionUtils.getMostSpecificCause(cause).getClass().getSimpleName();
		write("P " + blankToDash(listener) + " " + exception);
		FaultChild.announce("PAUSED listener=" + listener + " cause=" + exception);
	}

	@Override
	public void onListenerResumed(String listener, Duration paused) {
		write("U " + blankToDash(listener) + " " + paused.toMillis());
		FaultChild.announce("RESUMED listener=" + listener + " after=" + paused.toMillis() + "ms");
	}

	void closeCleanly() {
		write("S clean");
	}

	private static String blankToDash(String value) {
		return (value == null || value.isBlank()) ? "-" : value.replace(' ', '_');
	}

}
