package dev.idempotency.redis.stream.autoconfigure;

import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Map;

import dev.idempotency.redis.stream.RedisStreamListenerAnnotationBeanPostProcessor;
import dev.idempotency.redis.stream.RedisStreamListenerContainer;
import dev.idempotency.redis.stream.RedisStreamListenerEndpoint;
import dev.idempotency.redis.stream.RedisStreamListenerRegistry;
import dev.idempotency.redis.stream.RedisStreamSettings;
import org.junit.jupiter.api.Test;

import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;
import org.springframework.data.redis.connection.RedisConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.mockito.Mockito.mock;

/**
 * The inactive-time bookkeeping of {@link IdempotencyStreamsHealthIndicator}, over containers whose
 * subscription counts the test sets (the indicator against real Redis subscriptions is in
 * {@link IdempotencyHealthIntegrationTests}). Nothing is started, nothing connects.
 */
class IdempotencyStreamsHealthIndicatorTests {

	private static final RedisStreamSettings SETTINGS = new RedisStreamSettings(2, 1, Duration.ofSeconds(1),
			Duration.ofSeconds(1), Duration.ofSeconds(1), 1, ".dlq", Duration.ofSeconds(1), "payload", false);

	private final SettableContainer container = new SettableContainer();

	private final IdempotencyStreamsHealthIndicator indicator = new IdempotencyStreamsHealthIndicator(
			new RedisStreamListenerRegistry(new RedisStreamListenerAnnotationBeanPostProcessor(),
					mock(RedisConnectionFactory.class), SETTINGS, null, List::of, null) {

				@Override
				public Collection<RedisStreamListenerContainer> getListenerContainers() {
					return List.of(IdempotencyStreamsHealthIndicatorTests.this.container);
				}

			}, Duration.ofMillis(200));

	@Test
	void containerReadingWithAllItsConsumersIsUp() {
		this.container.set(true, 2);
		Health health = this.indicator.health();
		assertThat(health.getStatus()).isEqualTo(Status.UP);
		assertThat(details(health)).containsEntry("stream", "orders")
			.containsEntry("group", "points")
			.containsEntry("consumers", 2)
			.containsEntry("active", 2)
			.containsEntry("running", true)
			.doesNotContainKey("inactiveFor");
	}

	@Test
	void containerInactiveForLessThanTheThresholdIsUpAndLongerIsDown() throws InterruptedException {
		this.container.set(true, 1);
		this.indicator.onStreamSubscriptions("orders", "points", 1);
		assertThat(this.indicator.health().getStatus()).isEqualTo(Status.UP);
		assertThat(details(this.indicator.health())).containsKey("inactiveFor").containsEntry("active", 1);
		Thread.sleep(300);
		assertThat(this.indicator.health().getStatus()).isEqualTo(Status.DOWN);
	}

	@Test
	void clockStartsWithTheContainersReportNotWithTheFirstHealthRequest() throws InterruptedException {
		this.container.set(true, 0);
		this.indicator.onStreamSubscriptions("orders", "points", 0);
		Thread.sleep(300);
		assertThat(this.indicator.health().getStatus()).isEqualTo(Status.DOWN);
	}

	@Test
	void otherStreamsReportsDoNotStartTheClock() throws InterruptedException {
		this.container.set(true, 0);
		this.indicator.onStreamSubscriptions("invoices", "points", 0);
		Thread.sleep(300);
		assertThat(this.indicator.health().getStatus()).isEqualTo(Status.UP);
	}

	@Test
	void briefReadingBetweenErrorsDoesNotRestartTheClock() throws InterruptedException {
		this.container.set(true, 0);
		this.indicator.onStreamSubscriptions("orders", "points", 0);
		for (int i = 0; i < 3; i++) {
			Thread.sleep(60);
			this.container.set(true, 2);
			this.indicator.onStreamSubscriptions("orders", "points", 2);
			Thread.sleep(60);
			this.container.set(true, 0);
			this.indicator.onStreamSubscriptions("orders", "points", 0);
		}
		assertThat(this.indicator.health().getStatus()).isEqualTo(Status.DOWN);
	}

	@Test
	void containerReadingAgainForTheThresholdIsUpAgain() throws InterruptedException {
		this.container.set(true, 0);
		this.indicator.onStreamSubscriptions("orders", "points", 0);
		Thread.sleep(300);
		this.container.set(true, 2);
		this.indicator.onStreamSubscriptions("orders", "points", 2);
		// The inactive time stands still while the container reads again ...
		Health recovering = this.indicator.health();
		assertThat(recovering.getStatus()).isEqualTo(Status.DOWN);
		Thread.sleep(250);
		// ... and the outage ends once it has read for the threshold.
		Health health = this.indicator.health();
		assertThat(health.getStatus()).isEqualTo(Status.UP);
		assertThat(details(health)).doesNotContainKey("inactiveFor");
	}

	@Test
	void stoppedContainerDoesNotCount() throws InterruptedException {
		this.container.set(true, 0);
		this.indicator.onStreamSubscriptions("orders", "points", 0);
		Thread.sleep(300);
		this.container.set(false, 0);
		Health health = this.indicator.health();
		assertThat(health.getStatus()).isEqualTo(Status.UP);
		assertThat(details(health)).containsEntry("running", false).doesNotContainKey("inactiveFor");
	}

	@SuppressWarnings("unchecked")
	private static Map<String, Object> details(Health health) {
		return (Map<String, Object>) ((Map<String, Object>) health.getDetails().get("listeners")).get("points");
	}

	/** A container that is never started; the test sets what it reports. */
	static final class SettableContainer extends RedisStreamListenerContainer {

		private volatile boolean running;

		private volatile int active;

		SettableContainer() {
			super(endpoint(), SETTINGS, mock(RedisConnectionFactory.class), null, List::of, null);
		}

		void set(boolean running, int active) {
			this.running = running;
			this.active = active;
		}

		@Override
		public boolean isRunning() {
			return this.running;
		}

		@Override
		public int getActiveSubscriptions() {
			return this.active;
		}

		private static RedisStreamListenerEndpoint endpoint() {
			try {
				return new RedisStreamListenerEndpoint("points", "orders", "points", null, 2, "",
						String.class.getMethod("concat", String.class));
			}
			catch (NoSuchMethodException ex) {
				throw new IllegalStateException(ex);
			}
		}

	}

}
