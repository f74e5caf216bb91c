package dev.idempotency.redis.stream;

import java.lang.reflect.Method;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import dev.idempotency.core.DeliveryListener;
import dev.idempotency.support.DefaultFailureClassifier;
import dev.idempotency.support.FailClosedCircuits;
import dev.idempotency.support.FailClosedSettings;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.dao.QueryTimeoutException;
import org.springframework.data.redis.RedisConnectionFailureException;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisStreamCommands;
import org.springframework.data.redis.connection.stream.MapRecord;
import org.springframework.data.redis.connection.stream.RecordId;
import org.springframework.data.redis.connection.stream.StreamRecords;
import org.springframework.data.redis.core.RedisCallback;
import org.springframework.data.redis.core.StreamOperations;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.data.redis.core.script.RedisScript;
import org.springframework.transaction.CannotCreateTransactionException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.mockito.ArgumentMatchers.any;
import static org.mockito.ArgumentMatchers.anyList;
import static org.mockito.ArgumentMatchers.argThat;
import static org.mockito.ArgumentMatchers.eq;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.never;
import static org.mockito.Mockito.times;
import static org.mockito.Mockito.verify;
import static org.mockito.Mockito.when;

/**
 * What the dispatcher and the failure policy decide about an entry whose delivery fails, with
 * fail-closed on (a circuit source whose store and Redis come and go) and off. Redis is a mock:
 * acknowledgements, dead letters and delivery-counter resets are verified on it.
 */
class StreamEntryDispatcherFailClosedTests {

	private static final StreamBinding BINDING = new StreamBinding("orders", "points", List::of);

	private static final List<String> CONSUMERS = List.of("consumer-1", "consumer-2");

	private final List<String> events = new CopyOnWriteArrayList<>();

	private final AtomicInteger storeDownProbes = new AtomicInteger();

	private final AtomicInteger redisDownPings = new AtomicInteger();

	private final AtomicBoolean running = new AtomicBoolean(true);

	private final FailClosedCircuits circuits = new FailClosedCircuits(new DefaultFailureClassifier(), () -> {
		if (this.storeDownProbes.getAndDecrement() > 0) {
			throw new IllegalStateException("store down");
		}
	}, new FailClosedSettings(Duration.ofMillis(5), Duration.ofMillis(20)), () -> List.of(new DeliveryListener() {

		@Override
		public void onListenerPaused(String listener, Throwable cause) {
			StreamEntryDispatcherFailClosedTests.this.events.add("paused " + listener);
		}

		@Override
		public void onListenerResumed(String listener, Duration paused) {
			StreamEntryDispatcherFailClosedTests.this.events.add("resumed " + listener);
		}

	}));

	private final StringRedisTemplate redis = mock(StringRedisTemplate.class);

	@SuppressWarnings("unchecked")
	private final StreamOperations<String, Object, Object> streams = mock(StreamOperations.class);

	private final RedisConnection connection = mock(RedisConnection.class);

	private final RedisStreamCommands streamCommands = mock(RedisStreamCommands.class);

	private final Listener listener = new Listener();

	@BeforeEach
	@SuppressWarnings("unchecked")
	void redis() {
		when(this.redis.opsForStream()).thenReturn(this.streams);
		when(this.connection.streamCommands()).thenReturn(this.streamCommands);
		when(this.connection.ping()).thenAnswer((invocation) -> {
			if (this.redisDownPings.getAndDecrement() > 0) {
				throw new RedisConnectionFailureException("Redis down");
			}
			return "PONG";
		});
		when(this.redis.execute(any(RedisCallback.class)))
			.thenAnswer((invocation) -> invocation.<RedisCallback<?>>getArgument(0).doInRedis(this.connection));
		when(this.redis.execute(any(RedisScript.class), anyList(), any(Object[].class))).thenReturn(1L);
	}

	@Test
	void infrastructureFailureIsRetriedInPlaceUntilTheStoreAnswersAndIsNeverDeadLettered() {
		this.listener.failures.addAll(List.of(new CannotCreateTransactionException("no connection"),
				new QueryTimeoutException("timeout"), new CannotCreateTransactionException("still none")));
		this.storeDownProbes.set(3);
		// One delivery allowed: had a single infrastructure failure counted, the entry would be dead-lettered.
		dispatcher(true, 1).dispatch(record(), "consumer-1", 1);
		assertThat(this.listener.invocations).hasValue(4);
		verify(this.streams).acknowledge("orders", "points", "1-0");
		verify(this.streams, never()).add(any(MapRecord.class));
		assertThat(this.circuits.circuit("orders/points").isOpen()).isFalse();
		assertThat(this.events).containsExactly("paused orders/points", "resumed orders/points");
		// While it waited, the container's consumers kept their pending entries from being claimed
		// (XCLAIM JUSTID): before each of the 6 probes (3 failed, one per retry answered) and once
		// after each answer, before the retry.
		verify(this.redis, times(9)).execute(eq(StreamFailClosed.REFRESH_PENDING), eq(List.of("orders")), eq("points"),
				eq("1000"), eq("consumer-1"), eq("consumer-2"));
	}

	@Test
	void heldEntryWaitsForTheStreamsRedisAsWellAsTheStore() {
		this.listener.failures.add(new RedisConnectionFailureException("Redis down"));
		this.redisDownPings.set(3);
		dispatcher(true, 1).dispatch(record(), "consumer-1", 1);
		assertThat(this.listener.invocations).hasValue(2);
		verify(this.connection, times(4)).ping();
		verify(this.streams).acknowledge("orders", "points", "1-0");
		assertThat(this.events).containsExactly("paused orders/points", "resumed orders/points");
	}

	@Test
	void messageFailureClosesTheCircuitAndCountsTowardsMaxDeliveries() {
		this.circuits.circuit("orders/points").open(new CannotCreateTransactionException("earlier outage"));
		this.listener.failures.add(new IllegalStateException("poison"));
		dispatcher(true, 1).dispatch(record(), "consumer-1", 1);
		assertThat(this.listener.invocations).hasValue(1);
		verify(this.streams).add(any(MapRecord.class));
		assertThat(this.circuits.circuit("orders/points").isOpen()).isFalse();
	}

	@Test
	void containerStopDuringAnOutageLeavesTheEntryPendingWithoutCountingTheDelivery() {
		for (int i = 0; i < 1000; i++) {
			this.listener.failures.add(new CannotCreateTransactionException("no connection"));
		}
		this.storeDownProbes.set(Integer.MAX_VALUE);
		Thread stopper = new Thread(() -> {
			sleep(100);
			this.running.set(false);
		});
		stopper.start();
		// Its third delivery: the second failed because of the message, the third met the outage.
		dispatcher(true, 3).dispatch(record(), "consumer-1", 3);
		assertThat(this.listener.invocations).hasValue(1);
		verify(this.streams, never()).add(any(MapRecord.class));
		verify(this.streams, never()).acknowledge(any(String.class), any(String.class), any(String[].class));
		// Set back to 2: reading it again makes it the third delivery again, not the fourth.
		verify(this.streamCommands).xClaimJustId(any(byte[].class), eq("points"), eq("consumer-1"),
				argThat((options) -> options.getRetryCount() == 2L));
	}

	@Test
	void withFailClosedOffAnInfrastructureFailureCountsAndDeadLettersAsBefore() {
		this.listener.failures.add(new CannotCreateTransactionException("no connection"));
		dispatcher(false, 1).dispatch(record(), "consumer-1", 1);
		assertThat(this.listener.invocations).hasValue(1);
		verify(this.streams).add(any(MapRecord.class));
		assertThat(this.events).isEmpty();
	}

	@Test
	void readFailureOnTheInfrastructurePausesUntilRedisAnswersThenResumes() {
		this.redisDownPings.set(2);
		StreamFailClosed failClosed = new StreamFailClosed(this.circuits, this.redis, BINDING, CONSUMERS, this.running::get);
		failClosed.readFailed("consumer-1", "0-0", new RedisConnectionFailureException("Redis down"));
		assertThat(failClosed.isOpen()).isFalse();
		assertThat(this.events).containsExactly("paused orders/points", "resumed orders/points");
		assertThat(failClosed.pausesOn(new RedisConnectionFailureException("down"))).isTrue();
		assertThat(failClosed.pausesOn(new IllegalStateException("NOGROUP"))).isFalse();
	}

	@Test
	void recoveryClaimsNothingWhileTheListenerIsPaused() {
		StreamFailClosed failClosed = new StreamFailClosed(this.circuits, this.redis, BINDING, CONSUMERS, this.running::get);
		StreamConsumers consumers = mock(StreamConsumers.class);
		when(consumers.allReadOwnPending()).thenReturn(true);
		when(consumers.claimer()).thenReturn("consumer-1");
		PendingEntryRecovery pending = mock(PendingEntryRecovery.class);
		StreamRecoveryRun run = new StreamRecoveryRun(BINDING, settings(3), consumers, pending, failClosed, () -> {
		}, this.running::get);
		this.circuits.circuit("orders/points").open(new CannotCreateTransactionException("down"));
		run.run();
		verify(pending, never()).claimIdleEntries(any());
		verify(pending).measurePending();
		this.circuits.circuit("orders/points").close();
		run.run();
		verify(pending).claimIdleEntries("consumer-1");
	}

	private StreamEntryDispatcher dispatcher(boolean failClosed, int maxDeliveries) {
		RedisStreamSettings settings = settings(maxDeliveries);
		StreamFailurePolicy failures = new StreamFailurePolicy(this.redis, BINDING,
				new DeadLetterStream(this.redis, BINDING, ".dlq"), settings);
		Method method = Listener.method();
		return new StreamEntryDispatcher(this.redis, BINDING,
				new RedisStreamListenerEndpoint("points", "orders", "points", null, null, this.listener, method),
				new StreamArgumentResolver(method, "payload", null), failures,
				new StreamFailClosed(failClosed ? this.circuits : null, this.redis, BINDING, CONSUMERS,
						this.running::get));
	}

	private static RedisStreamSettings settings(int maxDeliveries) {
		return new RedisStreamSettings(1, 10, Duration.ofMillis(100), Duration.ofSeconds(30), Duration.ofSeconds(1),
				maxDeliveries, ".dlq", Duration.ofMillis(10), "payload", false);
	}

	private static MapRecord<String, String, String> record() {
		return StreamRecords.newRecord().in("orders").withId(RecordId.of("1-0")).ofMap(Map.of("payload", "order-1"));
	}

	private static void sleep(long millis) {
		try {
			Thread.sleep(millis);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	/** Throws the queued failures one per invocation, then succeeds. */
	public static class Listener {

		final Deque<RuntimeException> failures = new ArrayDeque<>();

		final AtomicInteger invocations = new AtomicInteger();

		static Method method() {
			try {
				return Listener.class.getMethod("onEntry", String.class);
			}
			catch (NoSuchMethodException ex) {
				throw new IllegalStateException(ex);
			}
		}

		public void onEntry(String payload) {
			this.invocations.incrementAndGet();
			RuntimeException failure = this.failures.poll();
			if (failure != null) {
				throw failure;
			}
		}

	}

}
