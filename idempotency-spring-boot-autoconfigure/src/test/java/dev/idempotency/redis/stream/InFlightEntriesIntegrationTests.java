package dev.idempotency.redis.stream;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import dev.idempotency.testsupport.TestRedisConnections;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.data.domain.Range;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.connection.stream.Consumer;
import org.springframework.data.redis.connection.stream.MapRecord;
import org.springframework.data.redis.connection.stream.PendingMessage;
import org.springframework.data.redis.connection.stream.ReadOffset;
import org.springframework.data.redis.connection.stream.StreamOffset;
import org.springframework.data.redis.connection.stream.StreamReadOptions;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.data.redis.core.script.RedisScript;

import static dev.idempotency.redis.stream.StreamTestSupport.add;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.verifyNoInteractions;

/**
 * The refresh of in-flight entries against the real Redis: it resets the idle time of the entries a
 * holder still has pending in its consumer, without counting a delivery, and touches nothing else (an
 * entry settled before the held range, one another consumer claimed, one acknowledged, another
 * consumer's). Entries are made idle with {@code XCLAIM ... IDLE}, not by waiting.
 */
class InFlightEntriesIntegrationTests {

	/** Sets an entry's idle time, its owner and delivery counter unchanged. ARGV: group, consumer, id, idle ms. */
	private static final RedisScript<Long> AGE = RedisScript.of("""
			redis.call('XCLAIM', KEYS[1], ARGV[1], ARGV[2], 0, ARGV[3], 'IDLE', ARGV[4], 'JUSTID')
			return 1
			""", Long.class);

	private final String stream = "rs-in-flight-" + UUID.randomUUID().toString().substring(0, 8);

	private LettuceConnectionFactory connectionFactory;

	private StringRedisTemplate redis;

	@BeforeEach
	void redis() {
		this.connectionFactory = TestRedisConnections.connectionFactory();
		this.redis = new StringRedisTemplate(this.connectionFactory);
		this.redis.opsForStream().createGroup(this.stream, ReadOffset.from("0-0"), this.stream);
	}

	@AfterEach
	void cleanUp() {
		this.redis.delete(this.stream);
		this.connectionFactory.destroy();
	}

	@Test
	void refreshResetsTheIdleTimeOfHeldEntriesStillPendingInTheHolderWithoutCountingADelivery() {
		for (int i = 1; i <= 6; i++) {
			add(this.redis, this.stream, "entry-" + i);
		}
		List<MapRecord<String, Object, Object>> read = read("holder", 5);
		read("other-instance", 1);
		List<String> ids = read.stream().map((record) -> record.getId().getValue()).toList();
		// Entry 1 failed and waits for its retry; entry 4 was claimed by another instance; entry 5 is
		// acknowledged; entries 2 and 3 are in flight. All idle for 10 s.
		this.redis.opsForStream().acknowledge(this.stream, this.stream, ids.get(4));
		age("holder", ids.get(0));
		age("holder", ids.get(1));
		age("holder", ids.get(2));
		age("other-instance", ids.get(3));
		String othersEntry = pending().keySet().stream().filter((id) -> !ids.contains(id)).findFirst().orElseThrow();
		age("other-instance", othersEntry);

		InFlightEntries inFlight = new InFlightEntries(this.redis, binding(), Duration.ofMillis(4));
		InFlightEntries.Holder holder = inFlight.holder("holder");
		holder.hold(read);
		holder.settledBefore(1);
		await().atMost(5, TimeUnit.SECONDS).until(() -> {
			inFlight.refresh();
			return inFlight.refreshed() > 0;
		});

		assertThat(inFlight.refreshed()).as("entries refreshed").isEqualTo(2);
		Map<String, PendingMessage> pending = pending();
		assertThat(pending).doesNotContainKey(ids.get(4));
		assertThat(pending.values()).allSatisfy((message) -> assertThat(message.getTotalDeliveryCount())
			.as(message.getIdAsString())
			.isEqualTo(1));
		assertThat(pending.get(ids.get(1)).getElapsedTimeSinceLastDelivery()).isLessThan(Duration.ofSeconds(5));
		assertThat(pending.get(ids.get(2)).getElapsedTimeSinceLastDelivery()).isLessThan(Duration.ofSeconds(5));
		assertThat(pending.get(ids.get(1)).getConsumerName()).isEqualTo("holder");
		assertThat(pending.get(ids.get(2)).getConsumerName()).isEqualTo("holder");
		// Not refreshed: the failed entry (its retry is due), the entry claimed by another instance
		// (not taken back), and the other instance's own entry.
		assertThat(pending.get(ids.get(0)).getElapsedTimeSinceLastDelivery())
			.isGreaterThanOrEqualTo(Duration.ofSeconds(10));
		assertThat(pending.get(ids.get(3)).getConsumerName()).isEqualTo("other-instance");
		assertThat(pending.get(ids.get(3)).getElapsedTimeSinceLastDelivery())
			.isGreaterThanOrEqualTo(Duration.ofSeconds(10));
		assertThat(pending.get(othersEntry).getElapsedTimeSinceLastDelivery())
			.isGreaterThanOrEqualTo(Duration.ofSeconds(10));
	}

	@Test
	void entriesReadLessThanAPeriodAgoCostNoRoundTrip() {
		add(this.redis, this.stream, "entry-1");
		List<MapRecord<String, Object, Object>> read = read("holder", 1);
		age("holder", read.get(0).getId().getValue());
		// min-idle 1 minute: refreshed after 15 s held.
		InFlightEntries inFlight = new InFlightEntries(this.redis, binding(), Duration.ofMinutes(1));
		assertThat(inFlight.period()).isEqualTo(Duration.ofSeconds(15));
		inFlight.holder("holder").hold(read);
		inFlight.refresh();
		assertThat(inFlight.refreshed()).isZero();
		assertThat(pending().get(read.get(0).getId().getValue()).getElapsedTimeSinceLastDelivery())
			.isGreaterThanOrEqualTo(Duration.ofSeconds(10));
	}

	@Test
	void releasedAndClosedHoldersKeepNothingFresh() {
		add(this.redis, this.stream, "entry-1");
		add(this.redis, this.stream, "entry-2");
		List<MapRecord<String, Object, Object>> first = read("released", 1);
		List<MapRecord<String, Object, Object>> second = read("closed", 1);
		age("released", first.get(0).getId().getValue());
		age("closed", second.get(0).getId().getValue());
		InFlightEntries inFlight = new InFlightEntries(this.redis, binding(), Duration.ofMillis(4));
		InFlightEntries.Holder released = inFlight.holder("released");
		released.hold(first);
		released.release();
		InFlightEntries.Holder closed = inFlight.holder("closed");
		closed.hold(second);
		closed.close();
		// A holder that still holds, to know when a refresh has run.
		add(this.redis, this.stream, "entry-3");
		inFlight.holder("holding").hold(read("holding", 1));
		await().atMost(5, TimeUnit.SECONDS).until(() -> {
			inFlight.refresh();
			return inFlight.refreshed() > 0;
		});
		assertThat(inFlight.refreshed()).isEqualTo(1);
		assertThat(pending().get(first.get(0).getId().getValue()).getElapsedTimeSinceLastDelivery())
			.isGreaterThanOrEqualTo(Duration.ofSeconds(10));
		assertThat(pending().get(second.get(0).getId().getValue()).getElapsedTimeSinceLastDelivery())
			.isGreaterThanOrEqualTo(Duration.ofSeconds(10));
	}

	@Test
	void aClaimAfterAnOutageLeavesTheEntriesHeldInFlightToTheirConsumer() {
		for (int i = 1; i <= 3; i++) {
			add(this.redis, this.stream, "entry-" + i);
		}
		List<MapRecord<String, Object, Object>> read = read("holder", 3);
		// No refresh could run during the outage: the held entries have been idle for 10 s
		read.forEach((record) -> age("holder", record.getId().getValue()));
		// min-idle 4 ms for the refresh: held longer than its period (1 ms) is held since before the outage
		InFlightEntries inFlight = new InFlightEntries(this.redis, binding(), Duration.ofMillis(4));
		inFlight.holder("holder").hold(read);
		long heldAt = System.nanoTime();
		await().atMost(1, TimeUnit.SECONDS).until(() -> System.nanoTime() - heldAt > TimeUnit.MILLISECONDS.toNanos(2));
		StreamEntryDispatcher dispatcher = mock(StreamEntryDispatcher.class);
		RedisStreamSettings settings = new RedisStreamSettings(1, 10, Duration.ofMillis(100), Duration.ofSeconds(2),
				Duration.ofMillis(500), 1, ".dlq", Duration.ofMillis(10), "payload", false);

		new PendingEntryRecovery(this.redis, binding(), settings, dispatcher, inFlight, () -> true)
			.claimIdleEntries("claimer");

		verifyNoInteractions(dispatcher);
		assertThat(pending().values()).hasSize(3).allSatisfy((message) -> {
			assertThat(message.getConsumerName()).isEqualTo("holder");
			assertThat(message.getTotalDeliveryCount()).isEqualTo(1);
		});
	}

	@Test
	void periodIsAQuarterOfMinIdleAndAtLeastAMillisecond() {
		assertThat(InFlightEntries.period(Duration.ofMinutes(1))).isEqualTo(Duration.ofSeconds(15));
		assertThat(InFlightEntries.period(Duration.ofMillis(500))).isEqualTo(Duration.ofMillis(125));
		assertThat(InFlightEntries.period(Duration.ofMillis(2))).isEqualTo(Duration.ofMillis(1));
	}

	private StreamBinding binding() {
		return new StreamBinding(this.stream, this.stream, List::of);
	}

	private List<MapRecord<String, Object, Object>> read(String consumer, int count) {
		return this.redis.opsForStream()
			.read(Consumer.from(this.stream, consumer), StreamReadOptions.empty().count(count),
					StreamOffset.create(this.stream, ReadOffset.lastConsumed()));
	}

	/** Makes an entry idle for 10 s (its owner becomes {@code consumer}). */
	private void age(String consumer, String id) {
		this.redis.execute(AGE, List.of(this.stream), this.stream, consumer, id, "10000");
	}

	private Map<String, PendingMessage> pending() {
		return this.redis.opsForStream()
			.pending(this.stream, this.stream, Range.unbounded(), 100)
			.stream()
			.collect(Collectors.toMap(PendingMessage::getIdAsString, (message) -> message));
	}

}
