package dev.idempotency.support;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import dev.idempotency.core.DeliveryListener;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class FailClosedCircuitTests {

	private final List<String> events = new CopyOnWriteArrayList<>();

	private final AtomicBoolean storeUp = new AtomicBoolean();

	private final AtomicInteger probes = new AtomicInteger();

	private final FailClosedCircuits circuits = new FailClosedCircuits(new DefaultFailureClassifier(), () -> {
		this.probes.incrementAndGet();
		if (!this.storeUp.get()) {
			throw new IllegalStateException("store down");
		}
	}, new FailClosedSettings(Duration.ofMillis(20), Duration.ofMillis(200)), () -> List.of(new DeliveryListener() {

		@Override
		public void onListenerPaused(String listener, Throwable cause) {
			FailClosedCircuitTests.this.events.add("paused " + listener + " " + cause.getMessage());
		}

		@Override
		public void onListenerResumed(String listener, Duration paused) {
			FailClosedCircuitTests.this.events.add("resumed " + listener);
		}

	}));

	@Test
	void oneOutageIsOnePauseAndOneResumeHoweverManyFailuresItHolds() {
		FailClosedCircuit circuit = this.circuits.circuit("orders");
		circuit.open(new IllegalStateException("first"));
		circuit.open(new IllegalStateException("second"));
		circuit.open(new IllegalStateException("third"));
		assertThat(circuit.isOpen()).isTrue();
		assertThat(circuit.cause()).hasMessage("first");
		circuit.close();
		circuit.close();
		assertThat(circuit.isOpen()).isFalse();
		assertThat(circuit.pausedFor()).isZero();
		assertThat(this.events).containsExactly("paused orders first", "resumed orders");
	}

	@Test
	void anAttemptThatStartedBeforeThePauseDoesNotResumeTheListener() {
		FailClosedCircuit circuit = this.circuits.circuit("orders");
		long startedBeforeTheOutage = System.nanoTime();
		circuit.open(new IllegalStateException("down"));
		// Another consumer's attempt, running when the outage began, committed just before the cut.
		circuit.close(startedBeforeTheOutage);
		assertThat(circuit.isOpen()).as("open after an attempt from before the pause").isTrue();
		circuit.close(System.nanoTime());
		assertThat(circuit.isOpen()).as("open after an attempt from after the pause").isFalse();
		assertThat(this.events).containsExactly("paused orders down", "resumed orders");
	}

	@Test
	void eachListenerHasItsOwnCircuit() {
		this.circuits.circuit("a").open(new IllegalStateException("down"));
		assertThat(this.circuits.circuit("a")).isSameAs(this.circuits.circuit("a"));
		assertThat(this.circuits.circuit("b").isOpen()).isFalse();
		assertThat(this.circuits.circuits()).containsOnlyKeys("a", "b");
	}

	@Test
	void waitEndsWhenAProbeAnswersAndTheCircuitStaysOpenUntilADeliveryGetsThrough() {
		FailClosedCircuit circuit = this.circuits.circuit("orders");
		circuit.open(new IllegalStateException("down"));
		AtomicInteger steps = new AtomicInteger();
		new Thread(() -> {
			sleep(70);
			this.storeUp.set(true);
		}).start();
		assertThat(circuit.awaitRecovery(() -> true, steps::incrementAndGet)).isTrue();
		assertThat(this.probes.get()).isGreaterThanOrEqualTo(2);
		assertThat(steps.get()).isEqualTo(this.probes.get());
		assertThat(circuit.isOpen()).isTrue();
	}

	@Test
	void waitIsBoundedByMaxWait() {
		FailClosedCircuit circuit = this.circuits.circuit("orders");
		circuit.open(new IllegalStateException("down"));
		long started = System.nanoTime();
		assertThat(circuit.awaitRecovery(() -> true, () -> {
		})).isFalse();
		long waited = Duration.ofNanos(System.nanoTime() - started).toMillis();
		assertThat(waited).isBetween(180L, 2000L);
	}

	@Test
	void waitEndsWhenTheContainerStops() {
		FailClosedCircuit circuit = this.circuits.circuit("orders");
		circuit.open(new IllegalStateException("down"));
		assertThat(circuit.awaitRecovery(() -> false, () -> {
		})).isFalse();
		assertThat(this.probes.get()).isZero();
	}

	@Test
	void closedCircuitDoesNotWait() {
		assertThat(this.circuits.circuit("orders").awaitRecovery(() -> true, () -> {
		})).isTrue();
		assertThat(this.probes.get()).isZero();
	}

	@Test
	void failingListenerDoesNotKeepTheCircuitFromOpening() {
		FailClosedCircuits throwing = new FailClosedCircuits(new DefaultFailureClassifier(), () -> {
		}, new FailClosedSettings(Duration.ofMillis(20), Duration.ofMillis(200)), () -> List.of(new DeliveryListener() {

			@Override
			public void onListenerPaused(String listener, Throwable cause) {
				throw new IllegalStateException("broken listener");
			}

		}));
		FailClosedCircuit circuit = throwing.circuit("orders");
		circuit.open(new IllegalStateException("down"));
		assertThat(circuit.isOpen()).isTrue();
	}

	private static void sleep(long millis) {
		try {
			Thread.sleep(millis);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

}
